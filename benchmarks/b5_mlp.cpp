// b5_mlp.cpp -- B5: mean((W2*tanh(W1*X + b1) + b2 - Y)^2) for X 32x256, W1 64x32, W2 1x64; all parameter gradients.
#include <benchmark/benchmark.h>

#include <fusegrad/fusegrad.hpp>

#include "allocation_counter.hpp"
#include "bench_common.hpp"
#ifdef FUSEGRAD_HAVE_TORCH
#include "torch_peer.hpp"
#endif

namespace fg = fusegrad;

#ifdef FUSEGRAD_HANDWRITTEN_SIMD
namespace fusegrad::bench {
// handwritten_simd/b5_mlp.cpp: pre becomes tanh(pre + bias) in a loop vectorised with glibc's vector math.
void b5_bias_tanh_simd(double* pre, const double* bias, std::size_t rows, std::size_t cols);
}  // namespace fusegrad::bench
#endif

namespace {

using Matrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

struct problem {
  Matrix X = fg::bench::uniform(32 * 256, -1, 1, 1).reshaped<Eigen::RowMajor>(32, 256);
  Matrix Y = fg::bench::uniform(256, -1, 1, 2).reshaped<Eigen::RowMajor>(1, 256);
  Matrix W1 = 0.2 * fg::bench::uniform(64 * 32, -1, 1, 3).reshaped<Eigen::RowMajor>(64, 32);
  Matrix b1 = 0.1 * fg::bench::uniform(64, -1, 1, 4).reshaped<Eigen::RowMajor>(64, 1);
  Matrix W2 = 0.2 * fg::bench::uniform(64, -1, 1, 5).reshaped<Eigen::RowMajor>(1, 64);
  double b2 = 0.05;
};

// The loss, and the gradients by backpropagation by hand: what every variant is checked against before it is timed.
double loss_by_hand(const problem& p) {
  const Matrix h = ((p.W1 * p.X).colwise() + p.b1.col(0)).array().tanh().matrix();
  return ((p.W2 * h).array() + p.b2 - p.Y.array()).square().mean();
}
struct gradients {
  Matrix dW1, db1, dW2;
  double db2 = 0;
};
gradients gradients_by_hand(const problem& p) {
  const Matrix h = ((p.W1 * p.X).colwise() + p.b1.col(0)).array().tanh().matrix();
  const Matrix dout = (2.0 / 256.0) * ((p.W2 * h).array() + p.b2 - p.Y.array()).matrix();
  const Matrix dpre = ((p.W2.transpose() * dout).array() * (1.0 - h.array().square())).matrix();
  return {dpre * p.X.transpose(), dpre.rowwise().sum(), dout * h.transpose(), dout.sum()};
}

std::span<const double> values_of(const Matrix& m) { return {m.data(), static_cast<std::size_t>(m.size())}; }
std::span<const double> values_of(const fg::Tensor& t) { return {t.data(), t.numel()}; }

// Checks what a variant computed (row-major values) against loss_by_hand and gradients_by_hand.
void check(const char* variant, double loss, std::span<const double> dW1, std::span<const double> db1,
           std::span<const double> dW2, double db2, const problem& p) {
  fg::bench::check_value(variant, loss, loss_by_hand(p));
  const gradients want = gradients_by_hand(p);
  fg::bench::check_gradient(variant, "dW1", dW1, values_of(want.dW1));
  fg::bench::check_gradient(variant, "db1", db1, values_of(want.db1));
  fg::bench::check_gradient(variant, "dW2", dW2, values_of(want.dW2));
  fg::bench::check_gradient(variant, "db2", db2, want.db2);
}

void forward(benchmark::State& state) {
  const problem p;
  for (auto _ : state) {
    const Matrix h = ((p.W1 * p.X).colwise() + p.b1.col(0)).array().tanh().matrix();
    const double loss = ((p.W2 * h).array() + p.b2 - p.Y.array()).square().mean();
    benchmark::DoNotOptimize(loss);
  }
}

// Backpropagation written out with Eigen, as a careful engineer writes it: buffers made
// once, outside the loop (fresh 128 KB temporaries would pay page faults on every call).
// Simd: the hidden layer's tanh in a loop vectorised with glibc's vector math, which
// Eigen 3.4 lacks for double (the products are Eigen's either way).
template <bool Simd>
void handwritten(benchmark::State& state) {
  const problem p;
  const double n = 256.0;
  Matrix h(64, 256), r(1, 256), dout(1, 256), dpre(64, 256), dW1(64, 32), dW2(1, 64), db1(64, 1);
  double loss = 0, db2 = 0;
  const auto step = [&] {
    h.noalias() = p.W1 * p.X;
    if constexpr (Simd) {
#ifdef FUSEGRAD_HANDWRITTEN_SIMD
      fg::bench::b5_bias_tanh_simd(h.data(), p.b1.data(), 64, 256);
#endif
    } else {
      h = (h.colwise() + p.b1.col(0)).array().tanh().matrix();
    }
    r.noalias() = p.W2 * h;
    r = (r.array() + p.b2 - p.Y.array()).matrix();
    loss = r.array().square().mean();
    dout = (2.0 / n) * r;  // 1x256
    dW2.noalias() = dout * h.transpose();
    db2 = dout.sum();
    dpre.noalias() = p.W2.transpose() * dout;
    dpre = (dpre.array() * (1.0 - h.array().square())).matrix();  // 64x256
    dW1.noalias() = dpre * p.X.transpose();
    db1 = dpre.rowwise().sum();
  };
  const char* name = Simd ? "B5/handwritten_simd" : "B5/handwritten";
  step();
  check(name, loss, values_of(dW1), values_of(db1), values_of(dW2), db2, p);
  fg::bench::record_allocations(state, step);
  for (auto _ : state) {
    step();
    benchmark::DoNotOptimize(loss);
    benchmark::DoNotOptimize(dW1.data());
    benchmark::DoNotOptimize(dW2.data());
    benchmark::DoNotOptimize(db1.data());
    benchmark::DoNotOptimize(db2);
    benchmark::ClobberMemory();
  }
}

// The static layer: the whole loss is one expression type.
void fused(benchmark::State& state) {
  const problem p;
  using dyn2 = fg::Shape<fg::dyn, fg::dyn>;
  fg::Const<double, dyn2> X(p.X), Y(p.Y);
  fg::Var<double, dyn2> W1(p.W1), b1(p.b1), W2(p.W2);
  fg::Var<double, fg::Shape<>> b2(p.b2);
  {
    const auto loss = fg::mean(fg::square(fg::matmul(W2, fg::tanh(fg::matmul(W1, X) + b1)) + b2 - Y));
    const auto [value, dW1, db1, dW2, db2] = fg::value_and_grad(loss, W1, b1, W2, b2);
    const Matrix gW1 = dW1, gb1 = db1, gW2 = dW2;  // whatever layout value_and_grad returns, row-major here
    check("B5/fused", value, values_of(gW1), values_of(gb1), values_of(gW2), db2, p);
  }
  fg::bench::record_allocations(state, [&] {
    const auto loss = fg::mean(fg::square(fg::matmul(W2, fg::tanh(fg::matmul(W1, X) + b1)) + b2 - Y));
    auto [value, dW1, db1, dW2, db2] = fg::value_and_grad(loss, W1, b1, W2, b2);
    benchmark::DoNotOptimize(value);
    benchmark::DoNotOptimize(dW1.data());
    benchmark::DoNotOptimize(db1.data());
    benchmark::DoNotOptimize(dW2.data());
    benchmark::DoNotOptimize(db2);
  });
  for (auto _ : state) {
    const auto loss = fg::mean(fg::square(fg::matmul(W2, fg::tanh(fg::matmul(W1, X) + b1)) + b2 - Y));
    auto [value, dW1, db1, dW2, db2] = fg::value_and_grad(loss, W1, b1, W2, b2);
    benchmark::DoNotOptimize(value);
    benchmark::DoNotOptimize(dW1.data());
    benchmark::DoNotOptimize(db1.data());
    benchmark::DoNotOptimize(dW2.data());
    benchmark::DoNotOptimize(db2);
  }
}

template <bool Fused>
void tape(benchmark::State& state) {
  const problem p;
  const fg::ConstTensor X(fg::Tensor::from(p.X)), Y(fg::Tensor::from(p.Y, {1, 256}));  // data, as Consts are
  fg::Tensor W1 = fg::Tensor::from(p.W1).requires_grad_(), b1 = fg::Tensor::from(p.b1, {64, 1}).requires_grad_(),
             W2 = fg::Tensor::from(p.W2, {1, 64}).requires_grad_(), b2 = fg::Tensor::scalar(p.b2).requires_grad_();
  {
    const auto expr = fg::mean(fg::square(fg::matmul(W2, fg::tanh(fg::matmul(W1, X) + b1)) + b2 - Y));
    fg::Tensor loss = Fused ? fg::Tensor(expr) : fg::taped(expr);
    loss.backward();
    check(Fused ? "B5/tape_fused" : "B5/taped", loss.item(), values_of(W1.grad()), values_of(b1.grad()),
          values_of(W2.grad()), b2.grad().item(), p);
  }
  fg::bench::record_allocations(state, [&] {
    for (fg::Tensor* t : {&W1, &b1, &W2, &b2}) t->zero_grad();
    const auto expr = fg::mean(fg::square(fg::matmul(W2, fg::tanh(fg::matmul(W1, X) + b1)) + b2 - Y));
    fg::Tensor loss = Fused ? fg::Tensor(expr) : fg::taped(expr);
    loss.backward();
    benchmark::DoNotOptimize(loss.item());
    benchmark::DoNotOptimize(W1.grad().data());
  });
  for (auto _ : state) {
    for (fg::Tensor* t : {&W1, &b1, &W2, &b2}) t->zero_grad();
    const auto expr = fg::mean(fg::square(fg::matmul(W2, fg::tanh(fg::matmul(W1, X) + b1)) + b2 - Y));
    fg::Tensor loss = Fused ? fg::Tensor(expr) : fg::taped(expr);
    loss.backward();
    benchmark::DoNotOptimize(loss.item());
    benchmark::DoNotOptimize(W1.grad().data());
  }
}

#ifdef FUSEGRAD_HAVE_TORCH
// LibTorch: X and Y wrapped as float64 tensors, the parameters leaves.
void libtorch(benchmark::State& state) {
  fg::bench::torch_single_thread();
  problem p;
  const torch::Tensor X = fg::bench::torch_view(p.X, {32, 256}), Y = fg::bench::torch_view(p.Y, {1, 256});
  torch::Tensor W1 = fg::bench::torch_parameter(p.W1, {64, 32}), b1 = fg::bench::torch_parameter(p.b1, {64, 1});
  torch::Tensor W2 = fg::bench::torch_parameter(p.W2, {1, 64});
  torch::Tensor b2 = torch::tensor(p.b2, torch::kFloat64).requires_grad_(true);
  const auto step = [&] {
    fg::bench::set_grads_to_none(W1, b1, W2, b2);
    torch::Tensor loss = torch::mse_loss(torch::addmm(b2, W2, torch::tanh(torch::addmm(b1, W1, X))), Y);
    loss.backward();
    return loss;
  };
  const torch::Tensor first = step();
  check("B5/libtorch", first.item<double>(), fg::bench::values_of(W1.grad()), fg::bench::values_of(b1.grad()),
        fg::bench::values_of(W2.grad()), b2.grad().item<double>(), p);
  fg::bench::record_allocations(state, step);
  for (auto _ : state) {
    torch::Tensor loss = step();
    benchmark::DoNotOptimize(loss.data_ptr<double>());
    benchmark::DoNotOptimize(W1.grad().data_ptr<double>());
  }
}
#endif

}  // namespace

BENCHMARK(forward)->Name("B5/forward/1");
BENCHMARK(handwritten<false>)->Name("B5/handwritten/1");
#ifdef FUSEGRAD_HANDWRITTEN_SIMD
BENCHMARK(handwritten<true>)->Name("B5/handwritten_simd/1");
#endif
BENCHMARK(fused)->Name("B5/fused/1");
BENCHMARK(tape<true>)->Name("B5/tape_fused/1");
BENCHMARK(tape<false>)->Name("B5/taped/1");
#ifdef FUSEGRAD_HAVE_TORCH
BENCHMARK(libtorch)->Name("B5/libtorch/1");
#endif

BENCHMARK_MAIN();
