// expect: error: static assertion failed: fusegrad::value_and_grad and grad\(f, vars...\): a Tensor is differentiated on the tape
// fail/value_and_grad_of_a_tensor.cpp -- value_and_grad with respect to a Tensor: one diagnostic that says how the
// tape differentiates, and no knock-on error at the structured binding.
#include <fusegrad/fusegrad.hpp>

namespace fg = fusegrad;

int main() {
  const fg::Tensor w = fg::Tensor::ones({3}).requires_grad_();
  fg::Tensor loss = fg::sum(w * w);  // the legal twin: the tape's way
  loss.backward();
#ifdef FUSEGRAD_FAIL
  auto [value, dw] = fg::value_and_grad(fg::sum(w * w), w);
  (void)value;
  (void)dw;
#endif
  return 0;
}
