// expect: error: .*operands_have_different_scalar_types<double, float>
// fail/mixed_scalar_types.cpp -- double times float: a compile error naming both scalar types.
#include <fusegrad/fusegrad.hpp>

namespace fg = fusegrad;

int main() {
  fg::Var<double, fg::Shape<3>> a;
  fg::Var<double, fg::Shape<3>> same;
  const auto fine = a * same * 2.0f;  // the legal twin: a plain number of any type is converted
  (void)fine;
#ifdef FUSEGRAD_FAIL
  fg::Var<float, fg::Shape<3>> b;
  const auto mixed = a * b;  // double and float: declare both with the same scalar type
  (void)mixed;
#endif
  return 0;
}
