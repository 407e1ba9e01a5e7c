// fused_vs_taped.cpp -- one training step of a small network recorded two ways: as one fused node (the whole loss a
// static expression) and one node per operation (fg::taped), as an eager framework records it. The gradients agree;
// the times differ. Passes when every gradient agrees to 1e-12.
#include <chrono>
#include <cmath>
#include <cstdio>

#include <fusegrad/fusegrad.hpp>

namespace fg = fusegrad;

namespace {

struct Network {
  fg::Tensor w1 = fg::Tensor::randn({32, 8}, 1).mul_(0.3).requires_grad_();
  fg::Tensor b1 = fg::Tensor::zeros({32}).requires_grad_();
  fg::Tensor w2 = fg::Tensor::randn({1, 32}, 2).mul_(0.3).requires_grad_();
  fg::Tensor b2 = fg::Tensor::zeros({1}).requires_grad_();

  void zero_grad() {
    for (fg::Tensor* p : {&w1, &b1, &w2, &b2}) p->zero_grad();
  }
  // mean((tanh(x W1^T + b1) W2^T + b2 - y)^2): a static expression over the tensors.
  [[nodiscard]] auto loss(const fg::Tensor& x, const fg::Tensor& y) const {
    return fg::mean(
        fg::square(fg::matmul(fg::tanh(fg::matmul(x, fg::transpose(w1)) + b1), fg::transpose(w2)) + b2 - y));
  }
};

// Microseconds per call of f, over `repeats` calls.
template <class F>
double microseconds(int repeats, F&& f) {
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < repeats; ++i) f();
  return 1e6 * std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / repeats;
}

}  // namespace

int main() {
  const fg::Tensor x = fg::Tensor::randn({64, 8}, 3);
  const fg::Tensor y = fg::Tensor::randn({64, 1}, 4);
  Network net;

  net.zero_grad();
  const fg::Tensor fused = net.loss(x, y);  // one node: FusedBackward
  fused.backward();
  const fg::Tensor fused_w1 = net.w1.grad(), fused_b2 = net.b2.grad();

  net.zero_grad();
  const fg::Tensor taped = fg::taped(net.loss(x, y));  // one node per operation
  taped.backward();

  double largest = std::abs(fused.item() - taped.item());
  for (std::size_t i = 0; i < fused_w1.numel(); ++i)
    largest = std::max(largest, std::abs(fused_w1.data()[i] - net.w1.grad().data()[i]));
  largest = std::max(largest, std::abs(fused_b2.item() - net.b2.grad().item()));
  std::printf("loss %.12f   recorded as %s (fused) and %s (taped)\n", fused.item(), fused.grad_fn_name().c_str(),
              taped.grad_fn_name().c_str());
  std::printf("largest difference between the two recordings: %.1e\n", largest);

  const double fused_us = microseconds(200, [&] {
    net.zero_grad();
    fg::Tensor(net.loss(x, y)).backward();
  });
  const double taped_us = microseconds(200, [&] {
    net.zero_grad();
    fg::taped(net.loss(x, y)).backward();
  });
  std::printf("forward and backward: fused %.1f us, taped %.1f us\n", fused_us, taped_us);
  return largest <= 1e-12 ? 0 : 1;
}
