// expect: error: .*unsqueeze_axis_past_the_rank_of<fusegrad::Shape<2, 3>, 3, .*"\(2, 3\)"
// fail/unsqueeze_past_the_rank.cpp -- an axis inserted past the end of a (2, 3) shape: one error naming it.
#include <fusegrad/ops/reshape.hpp>

int main() {
  fusegrad::Var<double, fusegrad::Shape<2, 3>> x;
  [[maybe_unused]] auto fine = fusegrad::unsqueeze(x, fusegrad::axes<2>);  // the legal twin: appends an axis
#ifdef FUSEGRAD_FAIL
  [[maybe_unused]] auto past = fusegrad::unsqueeze(x, fusegrad::axes<3>);  // at most 2 for rank 2
#endif
  return 0;
}
