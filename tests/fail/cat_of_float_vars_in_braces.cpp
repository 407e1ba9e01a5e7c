// expect: error: static assertion failed: fusegrad::cat\(axis, x, y...\): Vars and expressions are joined with the axis first
// fail/cat_of_float_vars_in_braces.cpp -- float Vars joined as Tensors are, fg::cat({x, y}, 0): one error that says
// the static form takes the axis first. What cat gives after the error is of floats, as the Vars are, so a float
// gradient built from it reports no mixed scalar types. The legal twin takes the axis first.
#include <fusegrad/fusegrad.hpp>

namespace fg = fusegrad;

int main() {
  const fg::Var<float, fg::Shape<2>> w{0.5f, -1.0f};
  const fg::Var<float, fg::Shape<2>> b{2.0f, 3.0f};
#ifdef FUSEGRAD_FAIL
  const auto both = fg::cat({w, b}, 0);
#else
  const auto both = fg::cat(fg::axes<0>, w, b);
#endif
  const auto [value, dw] = fg::value_and_grad(fg::mean(fg::square(both)), w);
  return value > 0.0f && dw(1) < 0.0f ? 0 : 1;
}
