// expect: error: static assertion failed: fusegrad::taped\(expr\): a Var takes its gradient from fg::value_and_grad, not from the tape
// fail/taped_of_a_var.cpp -- fg::taped over a Var: the tape would hold a copy of its values that takes no gradient.
#include <fusegrad/fusegrad.hpp>

namespace fg = fusegrad;

int main() {
  const fg::Const<double, fg::Shape<3>> data{1.0, 2.0, 3.0};
  const fg::Tensor fine = fg::taped(data * data);  // the legal twin: a Const is data
  (void)fine;
#ifdef FUSEGRAD_FAIL
  const fg::Var<double, fg::Shape<>> s(2.0);  // one value: a Const of one value would be taped as a number
  const fg::Tensor w = fg::Tensor::ones({3}).requires_grad_();
  const fg::Tensor y = fg::taped(fg::sum(s * w));  // a Var: its gradient comes from value_and_grad
  (void)y;
#endif
  return 0;
}
