// expect: error: static assertion failed: fusegrad::transpose\(x, i, j\): two axes are swapped
// fail/transpose_of_one_axis.cpp -- transpose given one axis: one error that says it swaps two (without it: no
// matching function, and every candidate listed). The legal twin names both.
#include <fusegrad/fusegrad.hpp>

namespace fg = fusegrad;

int main() {
  const fg::Var<double, fg::Shape<2, 3>> x{1.0, 2.0, 3.0, 4.0, 5.0, 6.0};
#ifdef FUSEGRAD_FAIL
  const auto swapped = fg::eval(fg::transpose(x, 1));
#else
  const auto swapped = fg::eval(fg::transpose(x, 0, 1));
#endif
  (void)swapped;
  return 0;
}
