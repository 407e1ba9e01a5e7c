// expect: error: .*cat_operands_do_not_fit_along_axis<1, .*"\(2, 3\) and \(4, 3\)"
// fail/cat_shapes_do_not_fit.cpp -- a static cat of operands that differ off its axis: one error naming the shapes.
#include <fusegrad/ops/cat.hpp>

int main() {
  fusegrad::Var<double, fusegrad::Shape<2, 3>> x;
  fusegrad::Var<double, fusegrad::Shape<4, 3>> y;
  [[maybe_unused]] auto fine = fusegrad::cat(fusegrad::axes<0>, x, y);  // the legal twin: (6, 3)
#ifdef FUSEGRAD_FAIL
  [[maybe_unused]] auto off_the_axis = fusegrad::cat(fusegrad::axes<1>, x, y);  // axis 0 has 2 and 4
#endif
  return 0;
}
