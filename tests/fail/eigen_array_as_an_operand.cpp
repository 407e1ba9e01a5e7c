// expect: error: static assertion failed: fusegrad: an operand is data \(an Eigen object, std::vector
// fail/eigen_array_as_an_operand.cpp -- an Eigen array beside an expression in an operator: one error that says how to
// make it a leaf (without it: no match for operator+, and a second error from Eigen's own operator+). The legal twin
// copies it into a Const.
#include <Eigen/Core>

#include <fusegrad/fusegrad.hpp>

namespace fg = fusegrad;

int main() {
  const fg::Var<double, fg::Shape<3>> x{1.0, 2.0, 3.0};
  const Eigen::Array3d a(1.0, 2.0, 3.0);
#ifdef FUSEGRAD_FAIL
  const auto f = fg::eval(fg::sum(x + a));
#else
  const auto f = fg::eval(fg::sum(x + fg::Const<double, fg::Shape<3>>(a)));
#endif
  (void)f;
  return 0;
}
