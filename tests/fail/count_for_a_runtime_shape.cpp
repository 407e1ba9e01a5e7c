// expect: error: static assertion failed: fusegrad::Var/Const: numbers alone are neither a size nor values; n zeros
// fail/count_for_a_runtime_shape.cpp -- a Shape<dyn> Var given its length as a number, as torch.zeros(3) takes one:
// one diagnostic that shows the extents in braces (without it: no matching constructor, every candidate listed).
#include <cstddef>

#include <fusegrad/fusegrad.hpp>

namespace fg = fusegrad;

int main() {
  std::size_t n = 3;  // not a constant: {n} must still read as extents
  const fg::Var<double, fg::Shape<fg::dyn>> fine({n});  // the legal twin: n zeros
  const fg::Var<double, fg::Shape<fg::dyn, fg::dyn>> matrix({2, n});
  (void)fine;
  (void)matrix;
#ifdef FUSEGRAD_FAIL
  const fg::Var<double, fg::Shape<fg::dyn>> x(n);
  (void)x;
#endif
  return 0;
}
