// expect: error: .*shapes_cannot_be_broadcast<fusegrad::Shape<3, 2>, fusegrad::Shape<4>, .*"\(3, 2\) and \(4\)"
// fail/expr_broadcast_mismatch.cpp -- x + y with static shapes (3,2) and (4): a compile error naming both shapes.
#include <fusegrad/fusegrad.hpp>

namespace fg = fusegrad;

int main() {
  fg::Var<double, fg::Shape<3, 2>> x;
  fg::Var<double, fg::Shape<2>> fits;
  const auto fine = x + fits;  // the legal twin: (3,2) + (2) -> (3,2)
  (void)fine;
#ifdef FUSEGRAD_FAIL
  fg::Var<double, fg::Shape<4>> y;
  const auto clash = x + y;  // 2 vs 4 on the last axis: make y (2), (1) or (3,1)
  (void)clash;
#endif
  return 0;
}
