// expect: error: static assertion failed: fusegrad::value_and_grad and grad\(f, vars...\): f is an expression built from the vars, not a function: .*there is no value_and_grad\(fn\)\(x\)
// fail/value_and_grad_of_a_function_alone.cpp -- JAX's value_and_grad(fn)(x), which makes a function: one error that
// says what value_and_grad takes, and none where the result is called and used (without it: no matching function, and
// every candidate listed); grad(fn)(x) the same. The legal twin calls the function first and names the var.
#include <fusegrad/fusegrad.hpp>

namespace fg = fusegrad;

int main() {
  const fg::Var<double, fg::Shape<3>> x{1.0, 2.0, 3.0};
  const auto energy = [](const auto& v) { return fg::sum(v * v); };
#ifdef FUSEGRAD_FAIL
  const auto [value, dx] = fg::value_and_grad(energy)(x);
  const auto dx_alone = fg::grad(energy)(x);
#else
  const auto [value, dx] = fg::value_and_grad(energy(x), x);
  const auto dx_alone = fg::grad(energy(x), x);
#endif
  return value + dx(0) + dx.sum() + dx_alone(1) + dx_alone.sum() > 0 ? 0 : 1;
}
