// expect: error: static assertion failed: fusegrad: a reduction names the same axis twice
// fail/reduce_tensor_same_axis_twice.cpp -- a tensor's reduction that names axis 1 twice: its rank is known at run time
// only, but the axes at compile time, so it is a compile error as for a static shape (PyTorch raises at run time).
#include <fusegrad/fusegrad.hpp>

namespace fg = fusegrad;

int main() {
  const fg::Tensor x = fg::Tensor::ones({2, 3});
  const fg::Tensor fine = fg::max(x, fg::axes<0, 1>);  // the legal twin: both axes -> ()
#ifdef FUSEGRAD_FAIL
  const fg::Tensor twice = fg::max(x, fg::axes<1, 1>);  // name each axis once
#endif
  return fine.item() == 1.0 ? 0 : 1;
}
