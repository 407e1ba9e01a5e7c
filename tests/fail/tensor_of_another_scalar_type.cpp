// expect: error: static assertion failed: fusegrad::Tensor: the expression's scalar type differs from the tensor's
// fail/tensor_of_another_scalar_type.cpp -- a float expression recorded as a (double) fg::Tensor: one diagnostic,
// before any conversion is tried.
#include <fusegrad/fusegrad.hpp>

namespace fg = fusegrad;

int main() {
  const fg::FloatTensor w = fg::FloatTensor::ones({3}).requires_grad_();
  const fg::FloatTensor fine = fg::mean(fg::square(w));  // the legal twin: a FloatTensor
  (void)fine;
#ifdef FUSEGRAD_FAIL
  const fg::Tensor loss = fg::mean(fg::square(w));  // float into double
  (void)loss;
#endif
  return 0;
}
