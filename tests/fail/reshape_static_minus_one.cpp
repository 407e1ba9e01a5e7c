// expect: error: static assertion failed: fusegrad::reshape<extents...>\(x\): static extents are counts \(>= 0\); to infer one, use the run-time form
// fail/reshape_static_minus_one.cpp -- reshape<3, -1>: -1 infers an extent only in the run-time form.
#include <fusegrad/fusegrad.hpp>

namespace fg = fusegrad;

int main() {
  const fg::Var<double, fg::Shape<2, 3>> x;
  const auto fine = fg::reshape<3, 2>(x);  // the legal twin: every extent given
  enum : int { rows = 3, cols = 2 };
  const auto named = fg::reshape<rows, cols>(x);  // extents may be any constants that convert to size_t
  (void)fine;
  (void)named;
  const auto inferred = fg::reshape(x, {3, -1});  // and the run-time form, which infers one
  (void)inferred;
#ifdef FUSEGRAD_FAIL
  const auto minus_one = fg::reshape<3, -1>(x);
  (void)minus_one;
#endif
  return 0;
}
