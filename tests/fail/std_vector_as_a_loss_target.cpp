// expect: error: static assertion failed: fusegrad: an operand is data \(an Eigen object, std::vector
// fail/std_vector_as_a_loss_target.cpp -- a std::vector as the target of a loss over Tensors: one error that says how
// to make it a tensor (without it: no match for operator- inside the loss, and every candidate listed). The legal twin
// gives fg::Tensor::from(v, {4}).
#include <vector>

#include <fusegrad/fusegrad.hpp>
#include <fusegrad/nn.hpp>

namespace fg = fusegrad;

int main() {
  const fg::Tensor prediction = fg::Tensor::ones({4});
  const std::vector<double> target{1.0, 2.0, 3.0, 4.0};
#ifdef FUSEGRAD_FAIL
  const fg::Tensor loss = fg::nn::mse_loss(prediction, target);
#else
  const fg::Tensor loss = fg::nn::mse_loss(prediction, fg::Tensor::from(target, {4}));
#endif
  (void)loss;
  return 0;
}
