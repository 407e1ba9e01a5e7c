// expect: error: .*matmul_inner_extents_differ<fusegrad::Shape<3, 4>, fusegrad::Shape<5, 2>, .*"\(3, 4\) and \(5, 2\)"
// fail/matmul_inner_extents.cpp -- matmul of static (3,4) and (5,2): a compile error naming both shapes.
#include <fusegrad/fusegrad.hpp>

namespace fg = fusegrad;

int main() {
  fg::Var<double, fg::Shape<3, 4>> a;
  fg::Var<double, fg::Shape<4, 2>> fits;
  const auto fine = fg::matmul(a, fits);  // the legal twin: (3,4) x (4,2) -> (3,2)
  (void)fine;
#ifdef FUSEGRAD_FAIL
  fg::Var<double, fg::Shape<5, 2>> b;
  const auto clash = fg::matmul(a, b);  // 4 vs 5: b must have as many rows as a has columns
  (void)clash;
#endif
  return 0;
}
