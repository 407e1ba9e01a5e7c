// expect: error: static assertion failed: fusegrad::value_and_grad and grad\(f, vars...\): a Tensor is differentiated on the tape
// fail/value_and_grad_of_a_tensor.cpp -- value_and_grad with respect to a Tensor: one diagnostic that says how the
// tape differentiates, and no knock-on error at the structured binding.
#include <fusegrad/fusegrad.hpp>

namespace fg = fusegrad;

int main() {
  const fg::Tensor w = fg::Tensor::ones({3}).requires_grad_();
  fg::Tensor loss = fg::sum(w * w);  // the legal twins: the tape's way, and value_and_grad of a Var
  loss.backward();
  const fg::Var<double, fg::Shape<3>> v{1.0, 1.0, 1.0};
  const auto [v_value, dv] = fg::value_and_grad(fg::sum(v * v), v);
  (void)v_value;
  (void)dv;
#ifdef FUSEGRAD_FAIL
  auto [value, dw] = fg::value_and_grad(fg::sum(w * w), w);
  (void)value;
  (void)dw;
#endif
  return 0;
}
