// expect: error: static assertion failed: fusegrad: an expression is not recorded, so it has no backward\(\); on the tape, record it as a Tensor first
// fail/backward_of_an_expression.cpp -- PyTorch's habit, loss.backward() on an expression: one diagnostic that says
// to record the expression as a Tensor first.
#include <fusegrad/fusegrad.hpp>

namespace fg = fusegrad;

int main() {
  fg::Tensor w = fg::Tensor::ones({3}).requires_grad_();
  fg::Tensor loss = fg::mean(fg::square(w * 2.0));  // the legal twin: recorded, then differentiated
  loss.backward();
#ifdef FUSEGRAD_FAIL
  fg::mean(fg::square(w * 2.0)).backward();  // an expression: not recorded
#endif
  return 0;
}
