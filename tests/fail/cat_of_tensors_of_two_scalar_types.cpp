// expect: error: static assertion failed: fusegrad::cat\({a, b}, axis\): the tensors have two scalar types
// fail/cat_of_tensors_of_two_scalar_types.cpp -- a Tensor and a FloatTensor in one braced list of cat: one error that
// says to convert one (without it: no matching function, and every candidate listed). The legal twin converts b.
#include <fusegrad/fusegrad.hpp>

namespace fg = fusegrad;

int main() {
  const fg::Tensor a = fg::Tensor::ones({3});
  const fg::FloatTensor b = fg::FloatTensor::ones({3});
#ifdef FUSEGRAD_FAIL
  const fg::Tensor joined = fg::cat({a, b}, 0);
#else
  const fg::Tensor joined = fg::cat({a, b.to<double>()}, 0);
#endif
  (void)joined;
  return 0;
}
