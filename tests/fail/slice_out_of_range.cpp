// expect: error: .*slice_out_of_range<fusegrad::Shape<2, 3>, .*"\(2, 3\)".*, 1, 1, 4, 1>
// fail/slice_out_of_range.cpp -- a static slice past the end of its axis: one error naming the shape and the bounds.
#include <fusegrad/ops/slice.hpp>

int main() {
  fusegrad::Var<double, fusegrad::Shape<2, 3>> x;
  [[maybe_unused]] auto fine = fusegrad::slice<1, 1, 3>(x);  // the legal twin: elements 1 and 2 of axis 1
#ifdef FUSEGRAD_FAIL
  [[maybe_unused]] auto past_the_end = fusegrad::slice<1, 1, 4>(x);  // axis 1 has 3 elements
#endif
  return 0;
}
