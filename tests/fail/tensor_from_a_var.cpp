// expect: error: static assertion failed: fusegrad::Tensor: a Var \(or a view Const\) is a leaf of static expressions, not a Tensor
// fail/tensor_from_a_var.cpp -- a Var where a Tensor goes (`fg::Tensor t = x`, an optimiser's parameter list, a
// module's input): one error that says how to make a Tensor of its values, not one about recording expressions.
#include <fusegrad/fusegrad.hpp>

namespace fg = fusegrad;

int main() {
  const fg::Var<double, fg::Shape<2, 3>> x{1.0, 2.0, 3.0, 4.0, 5.0, 6.0};
  const fg::Tensor fine = fg::Tensor::from(x.value(), x.extents()).requires_grad_();  // the legal twin
  (void)fine;
#ifdef FUSEGRAD_FAIL
  const fg::Tensor t = x;
  (void)t;
#endif
  return 0;
}
