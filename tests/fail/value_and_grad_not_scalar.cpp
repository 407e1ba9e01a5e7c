// expect: error: static assertion failed: fusegrad::value_and_grad and grad\(f, vars\.\.\.\): f is not a scalar
// also: fusegrad::Shape<3>
// fail/value_and_grad_not_scalar.cpp -- value_and_grad of a (3)-shaped expression: a compile error saying f is not a
// scalar. What it returns after the error takes the uses a value and a gradient get without a second error.
#include <fusegrad/fusegrad.hpp>

namespace fg = fusegrad;

int main() {
  fg::Var<double, fg::Shape<3>> x{1.0, 2.0, 3.0};
  const auto fine = fg::value_and_grad(fg::sum(x * x), x);  // the legal twin: reduce first
  (void)fine;
#ifdef FUSEGRAD_FAIL
  const auto [value, dx] = fg::value_and_grad(x * x, x);  // reduce it with fg::sum, or use fg::vjp with an upstream
  x.value() -= 0.1 * dx;
  const Eigen::ArrayXd kept = dx;
  return value + dx(0) + dx.sum() + kept.sum() > 0 ? 0 : 1;
#endif
  return 0;
}
