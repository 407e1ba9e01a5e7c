// expect: error: static assertion failed: fusegrad::value_and_grad and grad\(f, vars...\): f is an expression built from the vars, not a function or a number
// fail/value_and_grad_of_a_function.cpp -- a function where the expression goes (JAX's grad(fn)): one error that says
// what value_and_grad takes (a number that eval has computed gets the same). The legal twin calls the function first.
#include <fusegrad/fusegrad.hpp>

namespace fg = fusegrad;

int main() {
  const fg::Var<double, fg::Shape<3>> x{1.0, 2.0, 3.0};
  const auto energy = [](const auto& v) { return fg::sum(v * v); };
#ifdef FUSEGRAD_FAIL
  const auto [value, dx] = fg::value_and_grad(energy, x);
#else
  const auto [value, dx] = fg::value_and_grad(energy(x), x);
#endif
  (void)value;
  (void)dx;
  return 0;
}
