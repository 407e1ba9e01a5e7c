// linear_regression.cpp -- PyTorch's dynamic-graph tutorial with fg::optim::SGD: y = b + w x fitted to its data by
// 1000 epochs of full-batch gradient descent (lr 0.1), recorded fused and recorded taped, then a schedule and Adam.
// The figures are checked against examples/data/linreg/REFERENCE.md: a wrong number fails the run.
#include <cmath>
#include <cstdio>

#include <fusegrad/fusegrad.hpp>
#include <fusegrad/optim.hpp>

#include "csv.hpp"

namespace fg = fusegrad;
namespace optim = fusegrad::optim;

namespace {

struct Fit {
  double b, w, loss;
};

// Trains from the tutorial's start (torch.manual_seed(42); randn(1) for b, then for w); `record` turns the
// loss expression into a tensor: fused (one node) or taped (one node per op).
template <class Record>
Fit train(const fg::Tensor& x, const fg::Tensor& y, Record record) {
  fg::Tensor b = fg::Tensor::scalar(0.33669036626815796).requires_grad_();
  fg::Tensor w = fg::Tensor::scalar(0.12880940735340118).requires_grad_();
  optim::SGD opt({b, w}, {.lr = 0.1});
  double loss = 0;
  for (int epoch = 0; epoch < 1000; ++epoch) {
    opt.zero_grad();
    const fg::Tensor l = record(fg::mean(fg::square(b + w * x - y)));
    l.backward();
    loss = l.item();
    opt.step();
  }
  return {b.item(), w.item(), loss};
}

bool near(double actual, double expected, double tolerance) { return std::abs(actual - expected) <= tolerance; }

}  // namespace

int main() {
  const auto train_set = example::read_xy(FUSEGRAD_EXAMPLES_DATA_DIR "/linreg/train.csv");  // 80 points
  const fg::Tensor x = fg::Tensor::from(train_set.x);
  const fg::Tensor y = fg::Tensor::from(train_set.y);

  const Fit fused = train(x, y, [](const auto& loss) { return fg::Tensor(loss); });
  const Fit taped = train(x, y, [](const auto& loss) { return fg::taped(loss); });
  std::printf("fused: b = %.10f  w = %.10f  loss = %.10f\n", fused.b, fused.w, fused.loss);
  std::printf("taped: b = %.10f  w = %.10f  loss = %.10f\n", taped.b, taped.w, taped.loss);
  std::printf("PyTorch: b = 1.0235409025  w = 1.9689641813\n");

  // Adam from the same start, its rate annealed along a cosine: within 0.005 of the least-squares
  // line (b = 1.02354075, w = 1.96896447) in 300 epochs.
  fg::Tensor b = fg::Tensor::scalar(0.33669036626815796).requires_grad_();
  fg::Tensor w = fg::Tensor::scalar(0.12880940735340118).requires_grad_();
  optim::Adam adam({b, w}, {.lr = 0.1});
  optim::CosineAnnealingLR schedule(adam, {.t_max = 300});
  for (int epoch = 0; epoch < 300; ++epoch) {
    adam.zero_grad();
    fg::Tensor(fg::mean(fg::square(b + w * x - y))).backward();
    adam.step();
    schedule.step();
  }
  std::printf("Adam, cosine schedule, 300 epochs: b = %.6f  w = %.6f\n", b.item(), w.item());

  const bool ok = near(fused.b, 1.0235409024567799, 1e-9) && near(fused.w, 1.9689641812930265, 1e-9) &&
                  near(taped.b, fused.b, 1e-12) && near(taped.w, fused.w, 1e-12) &&
                  near(b.item(), 1.0235407546635167, 5e-3) && near(w.item(), 1.9689644704814506, 5e-3);
  std::printf("%s\n", ok ? "matches the PyTorch reference" : "DOES NOT match the PyTorch reference");
  return ok ? 0 : 1;
}
