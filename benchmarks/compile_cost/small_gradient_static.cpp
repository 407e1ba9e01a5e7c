// compile_cost/small_gradient_static.cpp -- small_gradient.cpp with the static layer's header alone.
#include <fusegrad/static.hpp>

namespace fg = fusegrad;

double gradient(double at) {
  fg::Var<double, fg::Shape<>> x(at);
  auto [value, dx] = fg::value_and_grad(x * fg::sin(x), x);
  return value + dx;
}
