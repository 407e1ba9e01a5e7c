// expect: error: .*permute_needs_each_axis_of_the_shape_once<fusegrad::Shape<2, 3>, fusegrad::Axes<0, 0>, .*"\(2, 3\)"
// fail/permute_not_a_permutation.cpp -- a static permute naming axis 0 twice: one error naming the shape and axes.
#include <fusegrad/ops/permute.hpp>

int main() {
  fusegrad::Var<double, fusegrad::Shape<2, 3>> x;
  [[maybe_unused]] auto fine = fusegrad::permute(x, fusegrad::axes<1, 0>);  // the legal twin
#ifdef FUSEGRAD_FAIL
  [[maybe_unused]] auto twice = fusegrad::permute(x, fusegrad::axes<0, 0>);  // each axis once
#endif
  return 0;
}
