// expect: error: static assertion failed: fusegrad::slice: the step must be at least 1
// fail/slice_step_zero.cpp -- a static slice with step 0: one error saying so.
#include <fusegrad/static.hpp>

int main() {
  fusegrad::Var<double, fusegrad::Shape<2, 3>> x;
  [[maybe_unused]] auto every_other = fusegrad::eval(fusegrad::slice<1, 0, 3, 2>(x));  // the legal twin
#ifdef FUSEGRAD_FAIL
  [[maybe_unused]] auto no_step = fusegrad::eval(fusegrad::slice<1, 0, 3, 0>(x));  // a step of at least 1
#endif
  return 0;
}
