// compile_cost/small_gradient.cpp -- one small scalar gradient in the static layer.
#include <fusegrad/fusegrad.hpp>

namespace fg = fusegrad;

double gradient(double at) {
  fg::Var<double, fg::Shape<>> x(at);
  auto [value, dx] = fg::value_and_grad(x * fg::sin(x), x);
  return value + dx;
}
