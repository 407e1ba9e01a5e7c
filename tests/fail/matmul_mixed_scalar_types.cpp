// expect: error: .*operands_have_different_scalar_types<double, float>
// fail/matmul_mixed_scalar_types.cpp -- a matmul of a double and a float matrix: one compile error naming both scalar
// types, as for element-wise operands. The legal twin casts the float data to double first.
#include <fusegrad/fusegrad.hpp>

namespace fg = fusegrad;

int main() {
  const fg::Var<double, fg::Shape<2, 2>> a{1.0, 2.0, 3.0, 4.0};
#ifdef FUSEGRAD_FAIL
  const fg::Const<float, fg::Shape<2, 2>> b{1.0f, 0.0f, 0.0f, 1.0f};
#else
  const fg::Const<double, fg::Shape<2, 2>> b{1.0, 0.0, 0.0, 1.0};
#endif
  const auto [value, da] = fg::value_and_grad(fg::sum(fg::matmul(a, b)), a);
  (void)value;
  (void)da;
  return 0;
}
