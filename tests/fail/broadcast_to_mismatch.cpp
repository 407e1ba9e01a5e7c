// expect: error: .*shape_does_not_broadcast_to<fusegrad::Shape<2, 3>, fusegrad::Shape<3, 3>, .*"\(2, 3\) and \(3, 3\)"
// fail/broadcast_to_mismatch.cpp -- broadcasting (2, 3) to (3, 3): one error naming both shapes.
#include <fusegrad/ops/broadcast_to.hpp>

int main() {
  fusegrad::Var<double, fusegrad::Shape<2, 3>> x;
  [[maybe_unused]] auto fine = fusegrad::broadcast_to<4, 2, 3>(x);  // the legal twin: a new leading axis
#ifdef FUSEGRAD_FAIL
  [[maybe_unused]] auto clash = fusegrad::broadcast_to<3, 3>(x);  // axis 0: 2 is neither 3 nor 1
#endif
  return 0;
}
