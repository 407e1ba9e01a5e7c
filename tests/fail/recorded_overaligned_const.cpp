// expect: error: static assertion failed: fusegrad: a recorded expression holds a fixed-size Const that Eigen aligns beyond what operator new gives
// flags: -mavx2
// fail/recorded_overaligned_const.cpp -- a Tensor recorded from an expression holding a Const of 4 doubles, which
// Eigen aligns to 32 bytes with AVX: a tape node's block is aligned to 16. The legal twin holds the constant as a
// ConstTensor and as a Const of dyn shape (its values on the heap).
#include <fusegrad/fusegrad.hpp>

namespace fg = fusegrad;

int main() {
  const fg::Tensor w = fg::Tensor::ones({4}).requires_grad_();
#ifdef FUSEGRAD_FAIL
  const fg::Tensor t = w * fg::Const<double, fg::Shape<4>>{1.0, 2.0, 3.0, 4.0};
#else
  const fg::Tensor t = w * fg::ConstTensor(fg::Tensor::from({1.0, 2.0, 3.0, 4.0}, {4})) +
                       w * fg::Const<double, fg::Shape<fg::dyn>>(Eigen::ArrayXd::LinSpaced(4, 1.0, 4.0));
#endif
  (void)t;
  return 0;
}
