// expect: error: .*matmul_batch_extents_do_not_broadcast<fusegrad::Shape<2, 3, 4>, fusegrad::Shape<5, 4, 2>, .*"\(2, 3, 4\) and \(5, 4, 2\)"
// fail/matmul_batch_extents.cpp -- batches of 2 and 5 matrices: a compile error naming both shapes.
#include <fusegrad/fusegrad.hpp>

namespace fg = fusegrad;

int main() {
  fg::Var<double, fg::Shape<2, 3, 4>> a;
  fg::Var<double, fg::Shape<1, 4, 2>> one;
  const auto fine = fg::matmul(a, one);  // the legal twin: a batch of 1 broadcasts -> (2, 3, 2)
  (void)fine;
#ifdef FUSEGRAD_FAIL
  fg::Var<double, fg::Shape<5, 4, 2>> five;
  const auto clash = fg::matmul(a, five);  // 2 and 5 matrices: batch extents must be equal or 1
  (void)clash;
#endif
  return 0;
}
