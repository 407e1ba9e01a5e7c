// expect: error: static assertion failed: fusegrad::value_and_grad and grad\(f, vars...\): f is an expression built from the vars, not a function or a number
// fail/value_and_grad_of_a_function_of_no_arguments.cpp -- a closure that captures the vars where the expression goes:
// one error that says what value_and_grad takes (without it: no matching function, and every candidate listed). The
// legal twin calls the closure first.
#include <fusegrad/fusegrad.hpp>

namespace fg = fusegrad;

int main() {
  const fg::Var<double, fg::Shape<3>> x{1.0, 2.0, 3.0};
  const auto energy = [&] { return fg::sum(x * x); };
#ifdef FUSEGRAD_FAIL
  const auto [value, dx] = fg::value_and_grad(energy, x);
#else
  const auto [value, dx] = fg::value_and_grad(energy(), x);
#endif
  (void)value;
  (void)dx;
  return 0;
}
