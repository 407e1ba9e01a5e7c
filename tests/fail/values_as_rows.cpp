// expect: error: static assertion failed: fusegrad::Var/Const: values are listed flat, in row-major order, not as rows in braces
// fail/values_as_rows.cpp -- NumPy's nested rows for a matrix Var: one diagnostic that shows the flat form.
#include <complex>

#include <fusegrad/fusegrad.hpp>

namespace fg = fusegrad;

int main() {
  const fg::Var<double, fg::Shape<2, 3>> fine{1.0, 2.0, 3.0, 4.0, 5.0, 6.0};  // the legal twin: flat, row-major
  const fg::Var<std::complex<double>, fg::Shape<2>> pairs{{1.0, 2.0}, {3.0, 4.0}};  // complex values as {re, im}
  (void)fine;
  (void)pairs;
#ifdef FUSEGRAD_FAIL
  const fg::Var<double, fg::Shape<2, 3>> rows{{1.0, 2.0, 3.0}, {4.0, 5.0, 6.0}};
  (void)rows;
#endif
  return 0;
}
