// b3_normal_logpdf.cpp -- B3: sum(-0.5*((y-mu)/sigma)^2 - log(sigma) - 0.5*log(2*pi)), gradient wrt mu, sigma.
#include <array>
#include <numbers>

#include <benchmark/benchmark.h>

#include <fusegrad/fusegrad.hpp>

#include "allocation_counter.hpp"
#include "bench_common.hpp"
#ifdef FUSEGRAD_HAVE_TORCH
#include "torch_peer.hpp"
#endif

namespace fg = fusegrad;

namespace {

constexpr double two_pi = 2.0 * std::numbers::pi;

// The log-density, and dmu and dsigma: what every variant is checked against before it is timed.
double value_by_hand(const Eigen::ArrayXd& y, double mu, double sigma) {
  return (-0.5 * ((y - mu) / sigma).square() - std::log(sigma) - 0.5 * std::log(two_pi)).sum();
}
std::array<double, 2> gradient_by_hand(const Eigen::ArrayXd& y, double mu, double sigma) {
  const Eigen::ArrayXd z = (y - mu) / sigma;
  return {z.sum() / sigma, z.square().sum() / sigma - double(y.size()) / sigma};
}
void check(const char* variant, const Eigen::ArrayXd& y, double value, double dmu, double dsigma) {
  fg::bench::check_value(variant, value, value_by_hand(y, 0.2, 1.3));
  const auto want = gradient_by_hand(y, 0.2, 1.3);
  fg::bench::check_gradient(variant, "dmu", dmu, want[0]);
  fg::bench::check_gradient(variant, "dsigma", dsigma, want[1]);
}

void forward(benchmark::State& state) {
  const Eigen::ArrayXd y = fg::bench::uniform(state.range(0), -3.0, 3.0);
  const double mu = 0.2, sigma = 1.3;
  for (auto _ : state) {
    double value = (-0.5 * ((y - mu) / sigma).square() - std::log(sigma) - 0.5 * std::log(two_pi)).sum();
    benchmark::DoNotOptimize(value);
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

// By hand: the sums of z and z^2 give the value and both derivatives in one pass, on SIMD
// lanes (the pragma lets the compiler reassociate the sums; see B2), four of each: a vector
// accumulator's addition waits on its previous one, so one chain per sum leaves the adders
// idle most of the time, where four independent chains (one per quarter of the data) keep them
// busy. The parameters are made opaque on every call (fg::bench::opaque), as B4's are: values
// the compiler knew would fold log(sigma) and 1 / sigma into constants that no caller with live
// parameters gets.
void handwritten(benchmark::State& state) {
  const Eigen::ArrayXd y = fg::bench::uniform(state.range(0), -3.0, 3.0);
  double mu = 0.2, sigma = 1.3;
  const auto n = double(y.size());
  const auto step = [&] {
    fg::bench::opaque(mu);
    fg::bench::opaque(sigma);
    const double inv = 1.0 / sigma, m = mu;
    const double* values = y.data();  // read once: through the closure, g++ would gather y[i] afresh
    const Eigen::Index count = y.size(), quarter = count / 4;
    const double *v0 = values, *v1 = values + quarter, *v2 = values + 2 * quarter, *v3 = values + 3 * quarter;
    double sz0 = 0, sz1 = 0, sz2 = 0, sz3 = 0, szz0 = 0, szz1 = 0, szz2 = 0, szz3 = 0;
#pragma omp simd reduction(+ : sz0, sz1, sz2, sz3, szz0, szz1, szz2, szz3)
    for (Eigen::Index i = 0; i < quarter; ++i) {
      const double z0 = (v0[i] - m) * inv, z1 = (v1[i] - m) * inv, z2 = (v2[i] - m) * inv, z3 = (v3[i] - m) * inv;
      sz0 += z0;
      sz1 += z1;
      sz2 += z2;
      sz3 += z3;
      szz0 += z0 * z0;
      szz1 += z1 * z1;
      szz2 += z2 * z2;
      szz3 += z3 * z3;
    }
    double sz = (sz0 + sz1) + (sz2 + sz3), szz = (szz0 + szz1) + (szz2 + szz3);
    for (Eigen::Index i = 4 * quarter; i < count; ++i) {  // the last count % 4 values
      const double z = (values[i] - m) * inv;
      sz += z;
      szz += z * z;
    }
    const double value = -0.5 * szz - n * std::log(sigma) - 0.5 * n * std::log(two_pi);
    return std::array{value, sz * inv, szz * inv - n * inv};  // value, dmu, dsigma
  };
  const auto first = step();
  check("B3/handwritten", y, first[0], first[1], first[2]);
  fg::bench::record_allocations(state, step);
  for (auto _ : state) {
    const auto [value, dmu, dsigma] = step();
    benchmark::DoNotOptimize(value);
    benchmark::DoNotOptimize(dmu);
    benchmark::DoNotOptimize(dsigma);
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

void fused(benchmark::State& state) {
  const Eigen::ArrayXd data = fg::bench::uniform(state.range(0), -3.0, 3.0);
  fg::Const<double, fg::Shape<fg::dyn>, fg::view> y(data.data(), {static_cast<std::size_t>(data.size())});
  fg::Var<double, fg::Shape<>> mu(0.2), sigma(1.3);
  {
    const auto f = fg::sum(-0.5 * fg::square((y - mu) / sigma) - fg::log(sigma) - 0.5 * std::log(two_pi));
    const auto [value, dmu, dsigma] = fg::value_and_grad(f, mu, sigma);
    check("B3/fused", data, value, dmu, dsigma);
  }
  fg::bench::record_allocations(state, [&] {
    const auto f = fg::sum(-0.5 * fg::square((y - mu) / sigma) - fg::log(sigma) - 0.5 * std::log(two_pi));
    auto [value, dmu, dsigma] = fg::value_and_grad(f, mu, sigma);
    benchmark::DoNotOptimize(value);
    benchmark::DoNotOptimize(dmu);
    benchmark::DoNotOptimize(dsigma);
  });
  for (auto _ : state) {
    const auto f = fg::sum(-0.5 * fg::square((y - mu) / sigma) - fg::log(sigma) - 0.5 * std::log(two_pi));
    auto [value, dmu, dsigma] = fg::value_and_grad(f, mu, sigma);
    benchmark::DoNotOptimize(value);
    benchmark::DoNotOptimize(dmu);
    benchmark::DoNotOptimize(dsigma);
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

// The parameters are ScalarTensors, as the static version's are scalar Vars: one value
// known at compile time, so log(sigma) and 1/sigma run once per backward, not per element;
// the data is a ConstTensor, as the static version's is a Const, so no VJP is compiled for it.
template <bool Fused>
void tape(benchmark::State& state) {
  const Eigen::ArrayXd data = fg::bench::uniform(state.range(0), -3.0, 3.0);
  const fg::ConstTensor y(fg::Tensor::from(data));
  fg::ScalarTensor mu(0.2), sigma(1.3);
  mu.requires_grad_();
  sigma.requires_grad_();
  {
    const auto f = fg::sum(-0.5 * fg::square((y - mu) / sigma) - fg::log(sigma) - 0.5 * std::log(two_pi));
    fg::Tensor value = Fused ? fg::Tensor(f) : fg::taped(f);
    value.backward();
    check(Fused ? "B3/tape_fused" : "B3/taped", data, value.item(), mu.grad().item(), sigma.grad().item());
  }
  fg::bench::record_allocations(state, [&] {
    mu.zero_grad();
    sigma.zero_grad();
    const auto f = fg::sum(-0.5 * fg::square((y - mu) / sigma) - fg::log(sigma) - 0.5 * std::log(two_pi));
    fg::Tensor value = Fused ? fg::Tensor(f) : fg::taped(f);
    value.backward();
    benchmark::DoNotOptimize(value.item());
    benchmark::DoNotOptimize(mu.grad().item());
    benchmark::DoNotOptimize(sigma.grad().item());
  });
  for (auto _ : state) {
    mu.zero_grad();
    sigma.zero_grad();
    const auto f = fg::sum(-0.5 * fg::square((y - mu) / sigma) - fg::log(sigma) - 0.5 * std::log(two_pi));
    fg::Tensor value = Fused ? fg::Tensor(f) : fg::taped(f);
    value.backward();
    benchmark::DoNotOptimize(value.item());
    benchmark::DoNotOptimize(mu.grad().item());
    benchmark::DoNotOptimize(sigma.grad().item());
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

#ifdef FUSEGRAD_HAVE_TORCH
// LibTorch: the data wrapped as a float64 tensor, mu and sigma scalar leaves.
void libtorch(benchmark::State& state) {
  fg::bench::torch_single_thread();
  Eigen::ArrayXd data = fg::bench::uniform(state.range(0), -3.0, 3.0);
  const torch::Tensor y = fg::bench::torch_view(data, {data.size()});
  torch::Tensor mu = torch::tensor(0.2, torch::kFloat64).requires_grad_(true);
  torch::Tensor sigma = torch::tensor(1.3, torch::kFloat64).requires_grad_(true);
  const auto step = [&] {
    fg::bench::set_grads_to_none(mu, sigma);
    torch::Tensor value = (-0.5 * ((y - mu) / sigma).square() - torch::log(sigma) - 0.5 * std::log(two_pi)).sum();
    value.backward();
    return value;
  };
  const torch::Tensor first = step();
  check("B3/libtorch", data, first.item<double>(), mu.grad().item<double>(), sigma.grad().item<double>());
  fg::bench::record_allocations(state, step);
  for (auto _ : state) {
    torch::Tensor value = step();
    benchmark::DoNotOptimize(value.data_ptr<double>());
    benchmark::DoNotOptimize(mu.grad().data_ptr<double>());
    benchmark::DoNotOptimize(sigma.grad().data_ptr<double>());
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
#endif

void sizes(benchmark::internal::Benchmark* b) {
  for (long n : {100L, 100000L}) b->Arg(n);
}

}  // namespace

BENCHMARK(forward)->Name("B3/forward")->Apply(sizes);
BENCHMARK(handwritten)->Name("B3/handwritten")->Apply(sizes);
BENCHMARK(fused)->Name("B3/fused")->Apply(sizes);
BENCHMARK(tape<true>)->Name("B3/tape_fused")->Apply(sizes);
BENCHMARK(tape<false>)->Name("B3/taped")->Apply(sizes);
#ifdef FUSEGRAD_HAVE_TORCH
BENCHMARK(libtorch)->Name("B3/libtorch")->Apply(sizes);
#endif

BENCHMARK_MAIN();
