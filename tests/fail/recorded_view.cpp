// expect: error: static assertion failed: fusegrad::fused\(expr\): a recorded expression may hold only Tensors and plain numbers
// fail/recorded_view.cpp -- a Tensor recorded from an expression holding a view Const by value: the node would read
// caller memory after this statement, changed or freed. The legal twin records the data as a Tensor.
#include <Eigen/Core>

#include <fusegrad/fusegrad.hpp>

namespace fg = fusegrad;

int main() {
  Eigen::ArrayXd data = Eigen::ArrayXd::Ones(3);
  const fg::Tensor w = fg::Tensor::from({1.0, 2.0, 3.0}, {3}).requires_grad_();
#ifdef FUSEGRAD_FAIL
  const fg::Tensor loss = fg::sum(w * fg::Const<double, fg::Shape<fg::dyn>, fg::view>(data.data(), {3}));
#else
  const fg::Tensor loss = fg::sum(w * fg::Tensor::from(data));
#endif
  loss.backward();
  return 0;
}
