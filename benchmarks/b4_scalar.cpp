// b4_scalar.cpp -- B4: x*y + sin(x)*exp(z) - y/z on scalars, gradient with respect to x, y, z.
#include <array>
#include <cmath>

#include <benchmark/benchmark.h>

#include <fusegrad/fusegrad.hpp>

#include "allocation_counter.hpp"
#include "bench_common.hpp"
#ifdef FUSEGRAD_HAVE_TORCH
#include "torch_peer.hpp"
#endif

namespace fg = fusegrad;

namespace {

// The value, and dx, dy, dz, at (0.5, 2, 1.5): what every variant is checked against before it is timed.
std::array<double, 3> gradient_by_hand(double x, double y, double z) {
  return {y + std::cos(x) * std::exp(z), x - 1.0 / z, std::sin(x) * std::exp(z) + y / (z * z)};
}

void check(const char* variant, double value, double dx, double dy, double dz) {
  fg::bench::check_value(variant, value, 0.5 * 2.0 + std::sin(0.5) * std::exp(1.5) - 2.0 / 1.5);
  const auto want = gradient_by_hand(0.5, 2.0, 1.5);
  fg::bench::check_gradient(variant, "dx", dx, want[0]);
  fg::bench::check_gradient(variant, "dy", dy, want[1]);
  fg::bench::check_gradient(variant, "dz", dz, want[2]);
}

void forward(benchmark::State& state) {
  double x = 0.5, y = 2.0, z = 1.5;
  for (auto _ : state) {
    fg::bench::opaque(x);
    fg::bench::opaque(y);
    fg::bench::opaque(z);
    double value = x * y + std::sin(x) * std::exp(z) - y / z;
    benchmark::DoNotOptimize(value);
  }
}

void handwritten(benchmark::State& state) {
  double x = 0.5, y = 2.0, z = 1.5;
  const auto step = [&] {
    fg::bench::opaque(x);
    fg::bench::opaque(y);
    fg::bench::opaque(z);
    const double s = std::sin(x), e = std::exp(z);
    return std::array{x * y + s * e - y / z, y + std::cos(x) * e, x - 1.0 / z, s * e + y / (z * z)};
  };
  const auto first = step();
  check("B4/handwritten", first[0], first[1], first[2], first[3]);
  fg::bench::record_allocations(state, step);
  for (auto _ : state) {
    const auto [value, dx, dy, dz] = step();
    benchmark::DoNotOptimize(value);
    benchmark::DoNotOptimize(dx);
    benchmark::DoNotOptimize(dy);
    benchmark::DoNotOptimize(dz);
  }
}

// The expression is built where it is differentiated, as user code writes it: it is six
// references to three vars, free to build, and the compiler then sees which leaf is which var.
void fused(benchmark::State& state) {
  fg::Var<double, fg::Shape<>> x(0.5), y(2.0), z(1.5);
  {
    const auto [value, dx, dy, dz] = fg::value_and_grad(x * y + fg::sin(x) * fg::exp(z) - y / z, x, y, z);
    check("B4/fused", value, dx, dy, dz);
  }
  fg::bench::record_allocations(state, [&] {
    benchmark::DoNotOptimize(x.data());
    benchmark::DoNotOptimize(y.data());
    benchmark::DoNotOptimize(z.data());
    const auto f = x * y + fg::sin(x) * fg::exp(z) - y / z;
    auto [value, dx, dy, dz] = fg::value_and_grad(f, x, y, z);
    benchmark::DoNotOptimize(value);
    benchmark::DoNotOptimize(dx);
    benchmark::DoNotOptimize(dy);
    benchmark::DoNotOptimize(dz);
  });
  for (auto _ : state) {
    benchmark::DoNotOptimize(x.data());
    benchmark::DoNotOptimize(y.data());
    benchmark::DoNotOptimize(z.data());
    const auto f = x * y + fg::sin(x) * fg::exp(z) - y / z;
    auto [value, dx, dy, dz] = fg::value_and_grad(f, x, y, z);
    benchmark::DoNotOptimize(value);
    benchmark::DoNotOptimize(dx);
    benchmark::DoNotOptimize(dy);
    benchmark::DoNotOptimize(dz);
  }
}

// The expression built once, outside the loop, and handed to the benchmark's memory clobber
// on every iteration: the compiler no longer knows which leaf refers to which var, so each
// of the six leaf occurrences is matched to the vars at run time and its gradient added
// through memory. This is the cost of that matching.
void fused_prebuilt(benchmark::State& state) {
  fg::Var<double, fg::Shape<>> x(0.5), y(2.0), z(1.5);
  const auto f = x * y + fg::sin(x) * fg::exp(z) - y / z;
  {
    const auto [value, dx, dy, dz] = fg::value_and_grad(f, x, y, z);
    check("B4/fused_prebuilt", value, dx, dy, dz);
  }
  fg::bench::record_allocations(state, [&] {
    benchmark::DoNotOptimize(x.data());
    benchmark::DoNotOptimize(y.data());
    benchmark::DoNotOptimize(z.data());
    benchmark::DoNotOptimize(f);
    auto [value, dx, dy, dz] = fg::value_and_grad(f, x, y, z);
    benchmark::DoNotOptimize(value);
    benchmark::DoNotOptimize(dx);
    benchmark::DoNotOptimize(dy);
    benchmark::DoNotOptimize(dz);
  });
  for (auto _ : state) {
    benchmark::DoNotOptimize(x.data());
    benchmark::DoNotOptimize(y.data());
    benchmark::DoNotOptimize(z.data());
    benchmark::DoNotOptimize(f);
    auto [value, dx, dy, dz] = fg::value_and_grad(f, x, y, z);
    benchmark::DoNotOptimize(value);
    benchmark::DoNotOptimize(dx);
    benchmark::DoNotOptimize(dy);
    benchmark::DoNotOptimize(dz);
  }
}

// The tape's per-node cost: the same expression on scalar tensors, one node per operation
// (7: mul, sin, exp, mul, add, div, sub). (taped - tape_fused) / 6 is the cost of each node
// beyond the first; (taped - handwritten) / 7 also carries the iteration's fixed costs.
template <bool Fused>
void tape(benchmark::State& state) {
  fg::Tensor x = fg::Tensor::scalar(0.5).requires_grad_(), y = fg::Tensor::scalar(2.0).requires_grad_(),
             z = fg::Tensor::scalar(1.5).requires_grad_();
  {
    const auto f = x * y + fg::sin(x) * fg::exp(z) - y / z;
    fg::Tensor value = Fused ? fg::Tensor(f) : fg::taped(f);
    value.backward();
    check(Fused ? "B4/tape_fused" : "B4/taped", value.item(), x.grad().item(), y.grad().item(), z.grad().item());
  }
  fg::bench::record_allocations(state, [&] {
    x.zero_grad();
    y.zero_grad();
    z.zero_grad();
    const auto f = x * y + fg::sin(x) * fg::exp(z) - y / z;
    fg::Tensor value = Fused ? fg::Tensor(f) : fg::taped(f);
    value.backward();
    benchmark::DoNotOptimize(value.item());
    benchmark::DoNotOptimize(x.grad().item());
  });
  for (auto _ : state) {
    x.zero_grad();
    y.zero_grad();
    z.zero_grad();
    const auto f = x * y + fg::sin(x) * fg::exp(z) - y / z;
    fg::Tensor value = Fused ? fg::Tensor(f) : fg::taped(f);
    value.backward();
    benchmark::DoNotOptimize(value.item());
    benchmark::DoNotOptimize(x.grad().item());
  }
  state.counters["nodes"] = Fused ? 1 : 7;
}

#ifdef FUSEGRAD_HAVE_TORCH
// LibTorch on scalar leaves: seven nodes, as taped records.
void libtorch(benchmark::State& state) {
  fg::bench::torch_single_thread();
  torch::Tensor x = torch::tensor(0.5, torch::kFloat64).requires_grad_(true);
  torch::Tensor y = torch::tensor(2.0, torch::kFloat64).requires_grad_(true);
  torch::Tensor z = torch::tensor(1.5, torch::kFloat64).requires_grad_(true);
  const auto step = [&] {
    fg::bench::set_grads_to_none(x, y, z);
    torch::Tensor value = x * y + torch::sin(x) * torch::exp(z) - y / z;
    value.backward();
    return value;
  };
  const torch::Tensor first = step();
  check("B4/libtorch", first.item<double>(), x.grad().item<double>(), y.grad().item<double>(), z.grad().item<double>());
  fg::bench::record_allocations(state, step);
  for (auto _ : state) {
    torch::Tensor value = step();
    benchmark::DoNotOptimize(value.data_ptr<double>());
    benchmark::DoNotOptimize(x.grad().data_ptr<double>());
  }
}
#endif

}  // namespace

BENCHMARK(forward)->Name("B4/forward/1");
BENCHMARK(handwritten)->Name("B4/handwritten/1")->ComputeStatistics("min", fg::bench::fastest);
BENCHMARK(fused)->Name("B4/fused/1");
BENCHMARK(fused_prebuilt)->Name("B4/fused_prebuilt/1");
BENCHMARK(tape<true>)->Name("B4/tape_fused/1")->ComputeStatistics("min", fg::bench::fastest);
BENCHMARK(tape<false>)->Name("B4/taped/1")->ComputeStatistics("min", fg::bench::fastest);
#ifdef FUSEGRAD_HAVE_TORCH
BENCHMARK(libtorch)->Name("B4/libtorch/1")->ComputeStatistics("min", fg::bench::fastest);
#endif

BENCHMARK_MAIN();
