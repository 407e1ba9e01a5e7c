// expect: error: static assertion failed: fusegrad::Var/Const: values are listed flat, in row-major order, not as rows in braces
// fail/values_as_rows_of_integers.cpp -- rows of integers for a static shape: not extents (1, 2) and values 3, 4, which
// would fit Shape<1, 2> with the wrong values, but the diagnostic of rows in braces.
#include <complex>

#include <fusegrad/fusegrad.hpp>

namespace fg = fusegrad;

int main() {
  // The legal twins: a shape known at run time takes its extents, then its values, in braces too; complex values are
  // pairs; a static shape's values listed flat.
  const fg::Var<double, fg::Shape<fg::dyn, fg::dyn>> extents_then_values{{2, 2}, {1, 2, 3, 4}};
  const fg::Var<std::complex<double>, fg::Shape<2>> pairs{{1, 2}, {3, 4}};
  const fg::Var<double, fg::Shape<1, 2>> fine{3, 4};
  (void)extents_then_values;
  (void)pairs;
  (void)fine;
#ifdef FUSEGRAD_FAIL
  const fg::Var<double, fg::Shape<1, 2>> rows{{1, 2}, {3, 4}};
  (void)rows;
#endif
  return 0;
}
