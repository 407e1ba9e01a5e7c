// expect: error: .*unsqueeze_of_a_shape_that_has_the_most_axes<fusegrad::Shape<1, 1, 1, 1, 1, 1, 1, 2>, 8,
// fail/unsqueeze_past_the_most_axes.cpp -- an axis inserted into a shape of rank 8, the most a shape holds: one error
// naming it.
#include <fusegrad/ops/reshape.hpp>

int main() {
  fusegrad::Var<double, fusegrad::Shape<1, 1, 1, 1, 1, 1, 2>> x;
  [[maybe_unused]] auto fine = fusegrad::unsqueeze(x, fusegrad::axes<0>);  // the legal twin: rank 7 to 8
#ifdef FUSEGRAD_FAIL
  fusegrad::Var<double, fusegrad::Shape<1, 1, 1, 1, 1, 1, 1, 2>> z;
  [[maybe_unused]] auto past = fusegrad::unsqueeze(z, fusegrad::axes<0>);  // rank 9
#endif
  return 0;
}
