// expect: error: static assertion failed: fusegrad::Var<T, S>: T is not a scalar type fusegrad differentiates
// fail/var_of_int.cpp -- a Var of integers: nothing to differentiate. One error, not one more for each use of the
// leaf. The legal twin declares it double.
#include <fusegrad/fusegrad.hpp>

namespace fg = fusegrad;

int main() {
#ifdef FUSEGRAD_FAIL
  const fg::Var<int, fg::Shape<3>> x{1, 2, 3};
#else
  const fg::Var<double, fg::Shape<3>> x{1, 2, 3};
#endif
  return fg::eval(fg::sum(x * x)) > 0 ? 0 : 1;
}
