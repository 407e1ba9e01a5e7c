// expect: error: static assertion failed: fusegrad::reshape\(x, {extents...}\): run-time extents go in braces
// fail/reshape_extents_without_braces.cpp -- run-time extents given one by one, as PyTorch's x.reshape(3, 2): one
// error that says they go in braces (without it: no matching function, and every candidate listed). The legal twin
// braces them.
#include <fusegrad/fusegrad.hpp>

namespace fg = fusegrad;

int main() {
  const fg::Var<double, fg::Shape<2, 3>> x{1.0, 2.0, 3.0, 4.0, 5.0, 6.0};
#ifdef FUSEGRAD_FAIL
  const auto reshaped = fg::eval(fg::reshape(x, 3, 2));
#else
  const auto reshaped = fg::eval(fg::reshape(x, {3, 2}));
#endif
  (void)reshaped;
  return 0;
}
