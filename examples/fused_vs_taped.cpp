// fused_vs_taped.cpp -- the loss of a small network, its gradient timed three ways with <fusegrad/benchmark.hpp>:
// fused (one static sweep), recorded as one tape node, and taped one node per operation as an eager framework
// records it, beside the gradient written by hand with Eigen. Registration checks that all four gradients
// agree (it throws otherwise); the program prints Google Benchmark's table, then each variant's time and ratio.
// Google Benchmark's flags apply: example_fused_vs_taped --benchmark_min_time=0.05
#include <Eigen/Core>

#include <fusegrad/benchmark.hpp>

namespace fg = fusegrad;

namespace {

constexpr int batch = 64, features = 8, hidden = 32;
using RowMajor = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// mean((tanh(x W1^T + b1) W2^T + b2 - y)^2), written once for both layers.
const auto loss = [](const auto& x, const auto& y, const auto& w1, const auto& b1, const auto& w2, const auto& b2) {
  return fg::mean(fg::square(fg::matmul(fg::tanh(fg::matmul(x, fg::transpose(w1)) + b1), fg::transpose(w2)) + b2 - y));
};

// The same loss and its gradient by hand: every input arrives flat and row-major, then one flat
// gradient per Var (w1, b1, w2, b2) to fill.
const auto loss_by_hand = [](const auto& x_, const auto& y_, const auto& w1_, const auto& b1, const auto& w2_,
                             const auto& b2, auto& dw1, auto& db1, auto& dw2, auto& db2) {
  const Eigen::Map<const RowMajor> x(x_.data(), batch, features), y(y_.data(), batch, 1),
      w1(w1_.data(), hidden, features), w2(w2_.data(), 1, hidden);
  const RowMajor h = ((x * w1.transpose()).rowwise() + b1.matrix().transpose()).array().tanh().matrix();
  const RowMajor residual = ((h * w2.transpose()).array() + b2(0)).matrix() - y;
  const RowMajor d_out = residual * (2.0 / batch);
  const RowMajor d_pre = ((d_out * w2).array() * (1.0 - h.array().square())).matrix();
  Eigen::Map<RowMajor>(dw1.data(), hidden, features) = d_pre.transpose() * x;
  db1 = d_pre.colwise().sum().transpose().array();
  Eigen::Map<RowMajor>(dw2.data(), 1, hidden) = d_out.transpose() * h;
  db2(0) = d_out.sum();
  return residual.squaredNorm() / batch;
};

}  // namespace

int main(int argc, char** argv) {
  // Data as Consts, parameters as Vars; static shapes, so the fused variant allocates nothing.
  const fg::Const<double, fg::Shape<batch, features>> x(Eigen::MatrixXd::Random(batch, features));
  const fg::Const<double, fg::Shape<batch, 1>> y(Eigen::MatrixXd::Random(batch, 1));
  const fg::Var<double, fg::Shape<hidden, features>> w1(0.3 * Eigen::MatrixXd::Random(hidden, features));
  const fg::Var<double, fg::Shape<hidden>> b1(0.1 * Eigen::VectorXd::Random(hidden));
  const fg::Var<double, fg::Shape<1, hidden>> w2(0.3 * Eigen::MatrixXd::Random(1, hidden));
  const fg::Var<double, fg::Shape<1>> b2(Eigen::VectorXd::Constant(1, 0.1));

  fg::register_gradient_benchmarks("mlp_loss", loss, x, y, w1, b1, w2, b2).handwritten(loss_by_hand);
  return fg::run_gradient_benchmarks(argc, argv);
}
