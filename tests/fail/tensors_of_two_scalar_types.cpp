// expect: error: .*operands_have_different_scalar_types<double, float>
// fail/tensors_of_two_scalar_types.cpp -- a Tensor and a FloatTensor in one recorded expression, fused and taped:
// one error, the scalar types, and nothing from the recording code after it. The legal twin casts the float tensor.
#include <fusegrad/fusegrad.hpp>

namespace fg = fusegrad;

int main() {
  const fg::Tensor a = fg::Tensor::ones({3}).requires_grad_();
  const fg::FloatTensor b = fg::FloatTensor::ones({3});
#ifdef FUSEGRAD_FAIL
  const fg::Tensor c = a + b;
  const fg::Tensor d = fg::taped(fg::sum(a * b));
#else
  const fg::Tensor c = a + b.to<double>();
  const fg::Tensor d = fg::taped(fg::sum(a * b.to<double>()));
#endif
  (void)c;
  (void)d;
  return 0;
}
