// b1_elementwise.cpp -- B1: sum(sin(x)*exp(-x*x) + log1p(x*x)), gradient with respect to x.
#include <benchmark/benchmark.h>

#include <fusegrad/fusegrad.hpp>

#include "allocation_counter.hpp"
#include "bench_common.hpp"
#ifdef FUSEGRAD_HAVE_TORCH
#include "torch_peer.hpp"
#endif

namespace fg = fusegrad;

namespace {

// The value and gradient every variant is checked against before it is timed.
double value_by_hand(const Eigen::ArrayXd& x) { return (x.sin() * (-x.square()).exp() + x.square().log1p()).sum(); }
Eigen::ArrayXd gradient_by_hand(const Eigen::ArrayXd& x) {
  const Eigen::ArrayXd e = (-x.square()).exp();
  return x.cos() * e - 2.0 * x * x.sin() * e + 2.0 * x / (1.0 + x.square());
}

std::span<const double> values_of(const Eigen::ArrayXd& a) { return {a.data(), static_cast<std::size_t>(a.size())}; }
// A gradient tensor's values: they live as long as the leaf that holds the gradient.
std::span<const double> values_of(const fg::Tensor& t) { return {t.data(), t.numel()}; }

// Forward only: the value, as plain Eigen computes it.
void forward(benchmark::State& state) {
  const Eigen::ArrayXd x = fg::bench::uniform(state.range(0), -2.0, 2.0);
  for (auto _ : state) {
    double value = (x.sin() * (-x.square()).exp() + x.square().log1p()).sum();
    benchmark::DoNotOptimize(value);
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

// The gradient written by hand with Eigen, sharing exp(-x^2) and sin(x) between value and
// gradient: what a careful engineer writes.
void handwritten(benchmark::State& state) {
  const Eigen::ArrayXd x = fg::bench::uniform(state.range(0), -2.0, 2.0);
  Eigen::ArrayXd dx(x.size()), e(x.size()), s(x.size());
  double checked = 0;
  fg::bench::record_allocations(state, [&] {
    e = (-x.square()).exp();
    s = x.sin();
    double value = (s * e + x.square().log1p()).sum();
    dx = x.cos() * e - 2.0 * x * s * e + 2.0 * x / (1.0 + x.square());
    checked = value;
    benchmark::DoNotOptimize(value);
    benchmark::DoNotOptimize(dx.data());
    benchmark::ClobberMemory();
  });
  fg::bench::check_value("B1/handwritten", checked, value_by_hand(x));
  fg::bench::check_gradient("B1/handwritten", "dx", values_of(dx), values_of(gradient_by_hand(x)));
  // Written out again, not shared with the lines above through a lambda: g++ compiles that form slower, and this is
  // the baseline.
  for (auto _ : state) {
    e = (-x.square()).exp();
    s = x.sin();
    double value = (s * e + x.square().log1p()).sum();
    dx = x.cos() * e - 2.0 * x * s * e + 2.0 * x / (1.0 + x.square());
    benchmark::DoNotOptimize(value);
    benchmark::DoNotOptimize(dx.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

#ifdef FUSEGRAD_HANDWRITTEN_SIMD
}  // namespace
namespace fusegrad::bench {
double b1_handwritten_simd(const double* x, double* dx, std::size_t n);  // handwritten_simd/b1_elementwise.cpp
}  // namespace fusegrad::bench
namespace {

// One hand-written loop over value and gradient, vectorised with glibc's vector math (-ffast-math, in
// its own object file).
void handwritten_simd(benchmark::State& state) {
  const Eigen::ArrayXd x = fg::bench::uniform(state.range(0), -2.0, 2.0);
  Eigen::ArrayXd dx(x.size());
  const auto n = static_cast<std::size_t>(x.size());
  fg::bench::check_value("B1/handwritten_simd", fg::bench::b1_handwritten_simd(x.data(), dx.data(), n),
                         value_by_hand(x), 1e-7);  // libmvec's functions are a few ulps off
  fg::bench::check_gradient("B1/handwritten_simd", "dx", values_of(dx), values_of(gradient_by_hand(x)));
  fg::bench::record_allocations(state, [&] {
    double value = fg::bench::b1_handwritten_simd(x.data(), dx.data(), n);
    benchmark::DoNotOptimize(value);
    benchmark::ClobberMemory();
  });
  for (auto _ : state) {
    double value = fg::bench::b1_handwritten_simd(x.data(), dx.data(), n);
    benchmark::DoNotOptimize(value);
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
#endif

// fusegrad's static layer: one fused loop computes the value and the gradient.
void fused(benchmark::State& state) {
  const Eigen::ArrayXd data = fg::bench::uniform(state.range(0), -2.0, 2.0);
  fg::Var<double, fg::Shape<fg::dyn>, fg::view> x(data.data(), {static_cast<std::size_t>(data.size())});
  {
    const auto [value, dx] = fg::value_and_grad(fg::sum(fg::sin(x) * fg::exp(-x * x) + fg::log1p(x * x)), x);
    fg::bench::check_value("B1/fused", value, value_by_hand(data));
    fg::bench::check_gradient("B1/fused", "dx", values_of(dx), values_of(gradient_by_hand(data)));
  }
  fg::bench::record_allocations(state, [&] {
    const auto f = fg::sum(fg::sin(x) * fg::exp(-x * x) + fg::log1p(x * x));
    auto [value, dx] = fg::value_and_grad(f, x);
    benchmark::DoNotOptimize(value);
    benchmark::DoNotOptimize(dx.data());
    benchmark::ClobberMemory();
  });
  for (auto _ : state) {
    const auto f = fg::sum(fg::sin(x) * fg::exp(-x * x) + fg::log1p(x * x));
    auto [value, dx] = fg::value_and_grad(f, x);
    benchmark::DoNotOptimize(value);
    benchmark::DoNotOptimize(dx.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

// The static layer writing the gradient into a buffer the loop reuses (value_and_grad_into), as the
// hand-written variant reuses its own: no heap at any size.
void fused_into(benchmark::State& state) {
  const Eigen::ArrayXd data = fg::bench::uniform(state.range(0), -2.0, 2.0);
  fg::Var<double, fg::Shape<fg::dyn>, fg::view> x(data.data(), {static_cast<std::size_t>(data.size())});
  Eigen::ArrayXd dx(data.size());
  fg::bench::check_value(
      "B1/fused_into",
      fg::value_and_grad_into(fg::sum(fg::sin(x) * fg::exp(-x * x) + fg::log1p(x * x)), std::tie(dx), x),
      value_by_hand(data));
  fg::bench::check_gradient("B1/fused_into", "dx", values_of(dx), values_of(gradient_by_hand(data)));
  fg::bench::record_allocations(state, [&] {
    const auto f = fg::sum(fg::sin(x) * fg::exp(-x * x) + fg::log1p(x * x));
    double value = fg::value_and_grad_into(f, std::tie(dx), x);
    benchmark::DoNotOptimize(value);
    benchmark::DoNotOptimize(dx.data());
    benchmark::ClobberMemory();
  });
  for (auto _ : state) {
    const auto f = fg::sum(fg::sin(x) * fg::exp(-x * x) + fg::log1p(x * x));
    double value = fg::value_and_grad_into(f, std::tie(dx), x);
    benchmark::DoNotOptimize(value);
    benchmark::DoNotOptimize(dx.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

// The same with a static shape: no heap at all.
void fused_static16(benchmark::State& state) {
  const Eigen::ArrayXd data = fg::bench::uniform(16, -2.0, 2.0);
  fg::Var<double, fg::Shape<16>> x(data);
  {
    const auto [value, dx] = fg::value_and_grad(fg::sum(fg::sin(x) * fg::exp(-x * x) + fg::log1p(x * x)), x);
    fg::bench::check_value("B1/fused_static", value, value_by_hand(data));
    fg::bench::check_gradient("B1/fused_static", "dx", values_of(dx), values_of(gradient_by_hand(data)));
  }
  fg::bench::record_allocations(state, [&] {
    const auto f = fg::sum(fg::sin(x) * fg::exp(-x * x) + fg::log1p(x * x));
    auto [value, dx] = fg::value_and_grad(f, x);
    benchmark::DoNotOptimize(value);
    benchmark::DoNotOptimize(dx.data());
    benchmark::ClobberMemory();
  });
  for (auto _ : state) {
    const auto f = fg::sum(fg::sin(x) * fg::exp(-x * x) + fg::log1p(x * x));
    auto [value, dx] = fg::value_and_grad(f, x);
    benchmark::DoNotOptimize(value);
    benchmark::DoNotOptimize(dx.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * 16);
}

// The dynamic layer: the same expression recorded as ONE tape node, then backward.
void tape_fused(benchmark::State& state) {
  const Eigen::ArrayXd data = fg::bench::uniform(state.range(0), -2.0, 2.0);
  fg::Tensor x = fg::Tensor::from(data).requires_grad_();
  {
    fg::Tensor f = fg::sum(fg::sin(x) * fg::exp(-x * x) + fg::log1p(x * x));
    f.backward();
    fg::bench::check_value("B1/tape_fused", f.item(), value_by_hand(data));
    fg::bench::check_gradient("B1/tape_fused", "dx", values_of(x.grad()), values_of(gradient_by_hand(data)));
  }
  fg::bench::record_allocations(state, [&] {
    x.zero_grad();
    fg::Tensor f = fg::sum(fg::sin(x) * fg::exp(-x * x) + fg::log1p(x * x));
    f.backward();
    benchmark::DoNotOptimize(f.item());
    benchmark::DoNotOptimize(x.grad().data());
  });
  for (auto _ : state) {
    x.zero_grad();
    fg::Tensor f = fg::sum(fg::sin(x) * fg::exp(-x * x) + fg::log1p(x * x));
    f.backward();
    benchmark::DoNotOptimize(f.item());
    benchmark::DoNotOptimize(x.grad().data());
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

// The dynamic layer, one node per operation (what eager frameworks record).
void taped(benchmark::State& state) {
  const Eigen::ArrayXd data = fg::bench::uniform(state.range(0), -2.0, 2.0);
  fg::Tensor x = fg::Tensor::from(data).requires_grad_();
  {
    fg::Tensor f = fg::taped(fg::sum(fg::sin(x) * fg::exp(-x * x) + fg::log1p(x * x)));
    f.backward();
    fg::bench::check_value("B1/taped", f.item(), value_by_hand(data));
    fg::bench::check_gradient("B1/taped", "dx", values_of(x.grad()), values_of(gradient_by_hand(data)));
  }
  fg::bench::record_allocations(state, [&] {
    x.zero_grad();
    fg::Tensor f = fg::taped(fg::sum(fg::sin(x) * fg::exp(-x * x) + fg::log1p(x * x)));
    f.backward();
    benchmark::DoNotOptimize(f.item());
    benchmark::DoNotOptimize(x.grad().data());
  });
  for (auto _ : state) {
    x.zero_grad();
    fg::Tensor f = fg::taped(fg::sum(fg::sin(x) * fg::exp(-x * x) + fg::log1p(x * x)));
    f.backward();
    benchmark::DoNotOptimize(f.item());
    benchmark::DoNotOptimize(x.grad().data());
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

#ifdef FUSEGRAD_HAVE_TORCH
// LibTorch: the same function on a float64 tensor wrapping the data, one node per operation.
void libtorch(benchmark::State& state) {
  fg::bench::torch_single_thread();
  Eigen::ArrayXd data = fg::bench::uniform(state.range(0), -2.0, 2.0);
  torch::Tensor x = fg::bench::torch_view(data, {data.size()}).requires_grad_(true);
  const auto step = [&] {
    fg::bench::set_grads_to_none(x);
    torch::Tensor f = (torch::sin(x) * torch::exp(-x * x) + torch::log1p(x * x)).sum();
    f.backward();
    return f;
  };
  fg::bench::check_value("B1/libtorch", step().item<double>(), value_by_hand(data));
  fg::bench::check_gradient("B1/libtorch", "dx", fg::bench::values_of(x.grad()), values_of(gradient_by_hand(data)));
  fg::bench::record_allocations(state, step);
  for (auto _ : state) {
    torch::Tensor f = step();
    benchmark::DoNotOptimize(f.data_ptr<double>());
    benchmark::DoNotOptimize(x.grad().data_ptr<double>());
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
#endif

void sizes(benchmark::internal::Benchmark* b) {
  for (long n : {16L, 1024L, 65536L, 1048576L}) b->Arg(n);
}
// And 2^22, where memory fresh from the system would cost a page fault per 4 KiB of every gradient: hand-written,
// fused and fused_into only.
void sizes_and_large(benchmark::internal::Benchmark* b) {
  sizes(b);
  b->Arg(4194304L);
}

}  // namespace

BENCHMARK(forward)->Name("B1/forward")->Apply(sizes);
BENCHMARK(handwritten)->Name("B1/handwritten")->Apply(sizes_and_large);
#ifdef FUSEGRAD_HANDWRITTEN_SIMD
BENCHMARK(handwritten_simd)->Name("B1/handwritten_simd")->Apply(sizes_and_large);
#endif
BENCHMARK(fused)->Name("B1/fused")->Apply(sizes_and_large);
BENCHMARK(fused_into)->Name("B1/fused_into")->Apply(sizes_and_large);
BENCHMARK(fused_static16)->Name("B1/fused_static/16");
BENCHMARK(tape_fused)->Name("B1/tape_fused")->Apply(sizes);
BENCHMARK(taped)->Name("B1/taped")->Apply(sizes);
#ifdef FUSEGRAD_HAVE_TORCH
BENCHMARK(libtorch)->Name("B1/libtorch")->Apply(sizes);
#endif

BENCHMARK_MAIN();
