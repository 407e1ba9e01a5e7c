// expect: error: .*reduction_axis_out_of_range_for_shape<fusegrad::Shape<3, 2>, fusegrad::Axes<2>, .*"\(3, 2\)"
// fail/cumsum_axis_out_of_range.cpp -- running sums along axis 2 of a (3, 2) Var: one error naming shape and axis.
#include <fusegrad/ops/cumsum.hpp>

int main() {
  fusegrad::Var<double, fusegrad::Shape<3, 2>> x;
  [[maybe_unused]] auto along_rows = fusegrad::cumsum(x, fusegrad::axes<1>);  // the legal twin
#ifdef FUSEGRAD_FAIL
  [[maybe_unused]] auto past_the_rank = fusegrad::cumsum(x, fusegrad::axes<2>);  // Shape<3, 2> has axes 0 and 1
#endif
  return 0;
}
