// expect: error: static assertion failed: fusegrad: a view leaf views a named Eigen object \(a Matrix, an Array, a Map or a Ref\), not an expression, wrapper or transpose
// fail/view_of_an_eigen_expression.cpp -- a view leaf over an Eigen expression, which has no memory to view: a compile
// error that says to evaluate it into a named object first.
#include <Eigen/Core>

#include <fusegrad/fusegrad.hpp>

namespace fg = fusegrad;

int main() {
  const Eigen::ArrayXd values = Eigen::ArrayXd::Ones(3);
  const Eigen::ArrayXd doubled = values * 2.0;
  const fg::Const<double, fg::Shape<fg::dyn>, fg::view> fine(doubled);  // the legal twin: a named array
  (void)fine;
#ifdef FUSEGRAD_FAIL
  const fg::Const<double, fg::Shape<fg::dyn>, fg::view> c(values * 2.0);
  (void)c;
#endif
  return 0;
}
