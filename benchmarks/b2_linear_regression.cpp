// b2_linear_regression.cpp -- B2: mean((b + w*x - y)^2), gradient with respect to the scalars b and w.
#include <array>

#include <benchmark/benchmark.h>

#include <fusegrad/fusegrad.hpp>

#include "allocation_counter.hpp"
#include "bench_common.hpp"
#ifdef FUSEGRAD_HAVE_TORCH
#include "torch_peer.hpp"
#endif

namespace fg = fusegrad;

namespace {

struct data {
  Eigen::ArrayXd x, y;
  explicit data(Eigen::Index n)
      : x(fg::bench::uniform(n, 0.0, 1.0)), y(1.0 + 2.0 * x + 0.1 * fg::bench::uniform(n, -1.0, 1.0, 7)) {}
};

// The loss, and db and dw: what every variant is checked against before it is timed.
double loss_by_hand(const data& d, double b, double w) { return (b + w * d.x - d.y).square().mean(); }
std::array<double, 2> gradient_by_hand(const data& d, double b, double w) {
  const Eigen::ArrayXd r = b + w * d.x - d.y;
  return {2 * r.mean(), 2 * (r * d.x).mean()};
}
void check(const char* variant, const data& d, double loss, double db, double dw) {
  fg::bench::check_value(variant, loss, loss_by_hand(d, 0.3, 0.1));
  const auto want = gradient_by_hand(d, 0.3, 0.1);
  fg::bench::check_gradient(variant, "db", db, want[0]);
  fg::bench::check_gradient(variant, "dw", dw, want[1]);
}

void forward(benchmark::State& state) {
  const data d(state.range(0));
  const double b = 0.3, w = 0.1;
  for (auto _ : state) {
    double loss = ((b + w * d.x - d.y).square()).mean();
    benchmark::DoNotOptimize(loss);
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

// One pass over the data accumulating the three sums, as one writes it by hand. The pragma
// lets the compiler reassociate the sums, so the loop runs on SIMD lanes instead of waiting
// on three serial chains of additions (-fopenmp-simd: no OpenMP runtime).
void handwritten(benchmark::State& state) {
  const data d(state.range(0));
  const double b = 0.3, w = 0.1;
  const auto n = d.x.size();
  const auto step = [&] {
    double sr = 0, srx = 0, srr = 0;
    const double *x = d.x.data(), *y = d.y.data();  // read once: through the closure, g++ may gather x[i] afresh
#pragma omp simd reduction(+ : sr, srx, srr)
    for (Eigen::Index i = 0; i < n; ++i) {
      const double r = b + w * x[i] - y[i];
      sr += r;
      srx += r * x[i];
      srr += r * r;
    }
    return std::array{srr / double(n), 2 * sr / double(n), 2 * srx / double(n)};  // loss, db, dw
  };
  const auto first = step();
  check("B2/handwritten", d, first[0], first[1], first[2]);
  fg::bench::record_allocations(state, step);
  for (auto _ : state) {
    const auto [loss, db, dw] = step();
    benchmark::DoNotOptimize(loss);
    benchmark::DoNotOptimize(db);
    benchmark::DoNotOptimize(dw);
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

void fused(benchmark::State& state) {
  const data d(state.range(0));
  const std::size_t n = static_cast<std::size_t>(d.x.size());
  fg::Var<double, fg::Shape<>> b(0.3), w(0.1);
  fg::Const<double, fg::Shape<fg::dyn>, fg::view> x(d.x.data(), {n}), y(d.y.data(), {n});
  {
    const auto [value, db, dw] = fg::value_and_grad(fg::mean(fg::square(b + w * x - y)), b, w);
    check("B2/fused", d, value, db, dw);
  }
  fg::bench::record_allocations(state, [&] {
    const auto loss = fg::mean(fg::square(b + w * x - y));
    auto [value, db, dw] = fg::value_and_grad(loss, b, w);
    benchmark::DoNotOptimize(value);
    benchmark::DoNotOptimize(db);
    benchmark::DoNotOptimize(dw);
  });
  for (auto _ : state) {
    const auto loss = fg::mean(fg::square(b + w * x - y));
    auto [value, db, dw] = fg::value_and_grad(loss, b, w);
    benchmark::DoNotOptimize(value);
    benchmark::DoNotOptimize(db);
    benchmark::DoNotOptimize(dw);
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

template <bool Fused>
void tape(benchmark::State& state) {
  const data d(state.range(0));
  // Data as ConstTensors, as the static version's are Consts: no VJP is compiled for them.
  const fg::ConstTensor x(fg::Tensor::from(d.x)), y(fg::Tensor::from(d.y));
  fg::ScalarTensor b(0.3), w(0.1);  // one value each, known at compile time, as the static version's Vars
  b.requires_grad_();
  w.requires_grad_();
  {
    fg::Tensor loss =
        Fused ? fg::Tensor(fg::mean(fg::square(b + w * x - y))) : fg::taped(fg::mean(fg::square(b + w * x - y)));
    loss.backward();
    check(Fused ? "B2/tape_fused" : "B2/taped", d, loss.item(), b.grad().item(), w.grad().item());
  }
  fg::bench::record_allocations(state, [&] {
    b.zero_grad();
    w.zero_grad();
    fg::Tensor loss =
        Fused ? fg::Tensor(fg::mean(fg::square(b + w * x - y))) : fg::taped(fg::mean(fg::square(b + w * x - y)));
    loss.backward();
    benchmark::DoNotOptimize(loss.item());
    benchmark::DoNotOptimize(b.grad().item());
    benchmark::DoNotOptimize(w.grad().item());
  });
  for (auto _ : state) {
    b.zero_grad();
    w.zero_grad();
    fg::Tensor loss =
        Fused ? fg::Tensor(fg::mean(fg::square(b + w * x - y))) : fg::taped(fg::mean(fg::square(b + w * x - y)));
    loss.backward();
    benchmark::DoNotOptimize(loss.item());
    benchmark::DoNotOptimize(b.grad().item());
    benchmark::DoNotOptimize(w.grad().item());
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

#ifdef FUSEGRAD_HAVE_TORCH
// LibTorch: the data wrapped as float64 tensors, b and w scalar leaves.
void libtorch(benchmark::State& state) {
  fg::bench::torch_single_thread();
  data d(state.range(0));
  const torch::Tensor x = fg::bench::torch_view(d.x, {d.x.size()}), y = fg::bench::torch_view(d.y, {d.y.size()});
  torch::Tensor b = torch::tensor(0.3, torch::kFloat64).requires_grad_(true);
  torch::Tensor w = torch::tensor(0.1, torch::kFloat64).requires_grad_(true);
  const auto step = [&] {
    fg::bench::set_grads_to_none(b, w);
    torch::Tensor loss = torch::mse_loss(b + w * x, y);
    loss.backward();
    return loss;
  };
  const torch::Tensor first = step();
  check("B2/libtorch", d, first.item<double>(), b.grad().item<double>(), w.grad().item<double>());
  fg::bench::record_allocations(state, step);
  for (auto _ : state) {
    torch::Tensor loss = step();
    benchmark::DoNotOptimize(loss.data_ptr<double>());
    benchmark::DoNotOptimize(b.grad().data_ptr<double>());
    benchmark::DoNotOptimize(w.grad().data_ptr<double>());
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
#endif

void sizes(benchmark::internal::Benchmark* b) {
  for (long n : {80L, 1048576L}) b->Arg(n);
}

}  // namespace

BENCHMARK(forward)->Name("B2/forward")->Apply(sizes);
BENCHMARK(handwritten)->Name("B2/handwritten")->Apply(sizes);
BENCHMARK(fused)->Name("B2/fused")->Apply(sizes);
BENCHMARK(tape<true>)->Name("B2/tape_fused")->Apply(sizes);
BENCHMARK(tape<false>)->Name("B2/taped")->Apply(sizes);
#ifdef FUSEGRAD_HAVE_TORCH
BENCHMARK(libtorch)->Name("B2/libtorch")->Apply(sizes);
#endif

BENCHMARK_MAIN();
