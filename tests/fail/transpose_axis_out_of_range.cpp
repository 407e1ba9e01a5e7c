// expect: error: .*transpose_axis_out_of_range_for_shape<fusegrad::Shape<2, 3>, fusegrad::Axes<0, 2>, .*"\(2, 3\)"
// fail/transpose_axis_out_of_range.cpp -- transpose(x, axes<0, 2>) of a matrix: one diagnostic naming the axes as
// written and the shape.
#include <fusegrad/fusegrad.hpp>

namespace fg = fusegrad;

int main() {
  const fg::Var<double, fg::Shape<2, 3>> x;
  const auto fine = fg::transpose(x, fg::axes<0, 1>);  // the legal twin: both axes below the rank
  (void)fine;
#ifdef FUSEGRAD_FAIL
  const auto swapped = fg::transpose(x, fg::axes<0, 2>);  // a matrix has no axis 2
  (void)swapped;
#endif
  return 0;
}
