// expect: error: static assertion failed: fusegrad::value_and_grad, grad, vjp and value_and_grad_into: a var given as a temporary
// fail/value_and_grad_into_of_a_temporary_var.cpp -- a var made in the call is not one the expression was built from,
// so its gradient would be zeros: one error. The legal twin gives the var by name.
#include <Eigen/Core>

#include <fusegrad/fusegrad.hpp>

namespace fg = fusegrad;

int main() {
  const fg::Var<double, fg::Shape<3>> x{1.0, 2.0, 3.0};
  Eigen::Array3d dx;
#ifdef FUSEGRAD_FAIL
  const double value = fg::value_and_grad_into(fg::sum(x * x), dx, fg::Var<double, fg::Shape<3>>{1.0, 2.0, 3.0});
#else
  const double value = fg::value_and_grad_into(fg::sum(x * x), dx, x);
#endif
  (void)value;
  return 0;
}
