// expect: error: static assertion failed: fusegrad::fused\(expr\): a recorded expression may hold only Tensors and plain numbers
// fail/recorded_var.cpp -- a Tensor recorded from an expression holding a Var: the node would take the Var's
// gradient nowhere. The legal twin makes the parameter a Tensor that requires grad.
#include <fusegrad/fusegrad.hpp>

namespace fg = fusegrad;

int main() {
  const fg::Tensor x = fg::Tensor::from({1.0, 2.0, 3.0}, {3});
#ifdef FUSEGRAD_FAIL
  const fg::Var<double, fg::Shape<3>> w{0.5, 0.5, 0.5};
  const fg::Tensor loss = fg::sum(x * w);
#else
  const fg::Tensor loss = fg::sum(x * fg::Tensor::from({0.5, 0.5, 0.5}, {3}).requires_grad_());
#endif
  (void)loss;
  return 0;
}
