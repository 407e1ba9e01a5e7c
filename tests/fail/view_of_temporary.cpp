// expect: error: static assertion failed: fusegrad: a view leaf of a temporary Eigen object would point at freed memory
// fail/view_of_temporary.cpp -- a view leaf over a temporary Eigen object, which would dangle after the statement:
// a compile error.
#include <Eigen/Core>

#include <fusegrad/fusegrad.hpp>

namespace fg = fusegrad;

int main() {
  const Eigen::VectorXd values = Eigen::VectorXd::Ones(3);
  const fg::Const<double, fg::Shape<fg::dyn>, fg::view> fine(values);  // the legal twin: a named vector
  (void)fine;
#ifdef FUSEGRAD_FAIL
  const fg::Const<double, fg::Shape<fg::dyn>, fg::view> c(Eigen::VectorXd::Ones(3).eval());
  (void)c;
#endif
  return 0;
}
