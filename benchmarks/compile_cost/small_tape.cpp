// compile_cost/small_tape.cpp -- a small program on the tape: five ops recorded by fg::taped, one node each, and a
// backward.
#include <fusegrad/fusegrad.hpp>

namespace fg = fusegrad;

double gradient(double at) {
  fg::Tensor x = fg::Tensor::scalar(at);
  x.requires_grad_();
  fg::Tensor y = fg::taped(x * fg::sin(x) + fg::exp(x) / x);
  y.backward();
  return x.grad().item();
}
