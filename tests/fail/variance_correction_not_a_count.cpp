// expect: error: static assertion failed: fusegrad::variance<correction>\(x, axes\) and stddev: the correction is a whole number >= 0
// fail/variance_correction_not_a_count.cpp -- variance's correction given as 2.0: one error that says what the
// correction is (without it: a failed conversion to size_t, and every candidate listed). The legal twin gives 0.
#include <fusegrad/fusegrad.hpp>

namespace fg = fusegrad;

int main() {
  const fg::Var<double, fg::Shape<3>> x{1.0, 2.0, 3.0};
#ifdef FUSEGRAD_FAIL
  const auto spread = fg::eval(fg::variance<2.0>(x));
#else
  const auto spread = fg::eval(fg::variance<0>(x));
#endif
  (void)spread;
  return 0;
}
