// expect: error: static assertion failed: fusegrad::value_and_grad and grad\(f, vars\.\.\.\): every var must be a fusegrad::Var
// also: is_variable_v<fusegrad::binary_expr<fusegrad::mul_op
// fail/value_and_grad_of_expression.cpp -- a gradient with respect to an expression: a compile error naming it.
#include <fusegrad/fusegrad.hpp>

namespace fg = fusegrad;

int main() {
  fg::Var<double, fg::Shape<3>> x{1.0, 2.0, 3.0};
  const auto fine = fg::value_and_grad(fg::sum(x * x), x);  // the legal twin: with respect to the Var
  (void)fine;
#ifdef FUSEGRAD_FAIL
  const auto of_expression = fg::value_and_grad(fg::sum(x * x), x * 2.0);  // only leaves take gradients: name x
  (void)of_expression;
#endif
  return 0;
}
