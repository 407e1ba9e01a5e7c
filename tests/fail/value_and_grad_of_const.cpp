// expect: error: static assertion failed: fusegrad::value_and_grad and grad\(f, vars\.\.\.\): every var must be a fusegrad::Var
// also: is_variable_v<fusegrad::Const<double, fusegrad::Shape<3> ?> ?>
// fail/value_and_grad_of_const.cpp -- a gradient with respect to a Const: a compile error naming the Const.
#include <fusegrad/fusegrad.hpp>

namespace fg = fusegrad;

int main() {
  fg::Var<double, fg::Shape<3>> x{1.0, 2.0, 3.0};
  fg::Const<double, fg::Shape<3>> c{4.0, 5.0, 6.0};
  const auto fine = fg::value_and_grad(fg::sum(x * c), x);  // the legal twin: with respect to the Var
  (void)fine;
#ifdef FUSEGRAD_FAIL
  const auto of_const = fg::value_and_grad(fg::sum(x * c), c);  // a Const takes no gradient: make it a Var
  (void)of_const;
#endif
  return 0;
}
