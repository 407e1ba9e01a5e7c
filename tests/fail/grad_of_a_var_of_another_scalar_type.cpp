// expect: error: static assertion failed: fusegrad::value_and_grad and grad\(f, vars...\): every var must have f's scalar type
// fail/grad_of_a_var_of_another_scalar_type.cpp -- the gradient of a float expression with respect to a double Var,
// which the expression cannot hold: it would be zero. The gradient it returns after the error takes its uses without a
// second error.
#include <fusegrad/fusegrad.hpp>

namespace fg = fusegrad;

int main() {
  const fg::Var<float, fg::Shape<3>> x{1.0f, 2.0f, 3.0f};
  const auto fine = fg::grad(fg::sum(x * x), x);  // the legal twin: x is in f
  (void)fine;
#ifdef FUSEGRAD_FAIL
  const fg::Var<double, fg::Shape<3>> y{1.0, 2.0, 3.0};
  const auto dy = fg::grad(fg::sum(x * x), y);
  return dy(0) + dy.sum() > 0 ? 0 : 1;
#endif
  return 0;
}
