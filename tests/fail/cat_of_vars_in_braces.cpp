// expect: error: static assertion failed: fusegrad::cat\(axis, x, y...\): Vars and expressions are joined with the axis first
// fail/cat_of_vars_in_braces.cpp -- Vars joined as Tensors are, fg::cat({x, y}, 0): one error that says the static
// form takes the axis first (without it: no matching function, and every candidate listed); what is built from its
// result after the error adds no second one. The legal twin takes the axis first.
#include <fusegrad/fusegrad.hpp>

namespace fg = fusegrad;

int main() {
  const fg::Var<double, fg::Shape<3>> x{1.0, 2.0, 3.0};
  const fg::Var<double, fg::Shape<3>> y{4.0, 5.0, 6.0};
  // Joined where the operands are references, as in a function of the program's own.
#ifdef FUSEGRAD_FAIL
  const auto join = [](const auto& a, const auto& b) { return fg::cat({a, b}, 0); };
#else
  const auto join = [](const auto& a, const auto& b) { return fg::cat(0, a, b); };
#endif
  const auto joined = join(x, y);
  const auto [value, dx] = fg::value_and_grad(fg::sum(joined * joined), x);
  return value > 0 && dx(0) > 0 ? 0 : 1;
}
