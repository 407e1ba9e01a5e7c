// linear_roots.cpp -- R1-R3: scalar roots built linearly from full sums and means, against the bare reductions
// of the same element-wise chains (report.py: root / bare, target <= 1.05).
//   R1  -sum(f)                                  bare: sum(f)
//   R2  sum(f) / n                               bare: sum(f)
//   R3  0.5 * mean(e * e) + 0.01 * sum(w * w)    bare: sum(e * e) and sum(w * w), each its own gradient
// with f = B1's chain sin(x) * exp(-x * x) + log1p(x * x), e = x * w - y. Variants: fused (value_and_grad_into,
// gradients into buffers reused across calls, so that fresh memory does not weigh on one side) and tape_fused (one
// recorded node, backward), each beside bare_<variant>.
#include <span>
#include <tuple>

#include <benchmark/benchmark.h>

#include <fusegrad/fusegrad.hpp>

#include "bench_common.hpp"

namespace fg = fusegrad;

namespace {

using Vector = fg::Var<double, fg::Shape<fg::dyn>>;
using Data = fg::Const<double, fg::Shape<fg::dyn>>;

double b1_value(const Eigen::ArrayXd& x) { return (x.sin() * (-x.square()).exp() + x.square().log1p()).sum(); }
Eigen::ArrayXd b1_gradient(const Eigen::ArrayXd& x) {
  const Eigen::ArrayXd e = (-x.square()).exp();
  return x.cos() * e - 2.0 * x * x.sin() * e + 2.0 * x / (1.0 + x.square());
}

std::span<const double> values_of(const Eigen::ArrayXd& a) { return {a.data(), static_cast<std::size_t>(a.size())}; }
std::span<const double> values_of(const fg::Tensor& t) { return {t.data(), t.numel()}; }

auto chain(const auto& x) { return fg::sin(x) * fg::exp(-x * x) + fg::log1p(x * x); }

// R1 and R2: a root of sum(f), its gradient's factor over f's, in the static layer and on the tape.
template <int Case>
auto b1_root(const auto& x, double n) {
  if constexpr (Case == 0)
    return fg::sum(chain(x));
  else if constexpr (Case == 1)
    return -fg::sum(chain(x));
  else
    return fg::sum(chain(x)) / n;
}
template <int Case>
double b1_factor(double n) {
  return Case == 0 ? 1.0 : Case == 1 ? -1.0 : 1.0 / n;
}

template <int Case>
void b1_fused(benchmark::State& state) {
  const Eigen::ArrayXd data = fg::bench::uniform(state.range(0), -2.0, 2.0);
  const Vector x(data);
  const double n = double(data.size());
  Eigen::ArrayXd dx(data.size());
  const double first = fg::value_and_grad_into(b1_root<Case>(x, n), std::tie(dx), x);
  fg::bench::check_value("R/fused", first, b1_factor<Case>(n) * b1_value(data));
  fg::bench::check_gradient("R/fused", "dx", values_of(dx), values_of(b1_factor<Case>(n) * b1_gradient(data)));
  for (auto _ : state) {
    const double value = fg::value_and_grad_into(b1_root<Case>(x, n), std::tie(dx), x);
    benchmark::DoNotOptimize(value);
    benchmark::DoNotOptimize(dx.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

template <int Case>
void b1_tape_fused(benchmark::State& state) {
  const Eigen::ArrayXd data = fg::bench::uniform(state.range(0), -2.0, 2.0);
  fg::Tensor x = fg::Tensor::from(data).requires_grad_();
  const double n = double(data.size());
  {
    fg::Tensor f = b1_root<Case>(x, n);
    f.backward();
    fg::bench::check_value("R/tape_fused", f.item(), b1_factor<Case>(n) * b1_value(data));
    fg::bench::check_gradient("R/tape_fused", "dx", values_of(x.grad()),
                              values_of(b1_factor<Case>(n) * b1_gradient(data)));
  }
  for (auto _ : state) {
    x.zero_grad();
    fg::Tensor f = b1_root<Case>(x, n);
    f.backward();
    benchmark::DoNotOptimize(f.item());
    benchmark::DoNotOptimize(x.grad().data());
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

// R3: a regression loss with an L2 penalty, and its two parts on their own.
struct R3Data {
  Eigen::ArrayXd x, y, w;
  explicit R3Data(Eigen::Index n)
      : x(fg::bench::uniform(n, -1.0, 1.0, 1)),
        y(fg::bench::uniform(n, -1.0, 1.0, 2)),
        w(fg::bench::uniform(n, -1.0, 1.0, 3)) {}
  // 0.5 * mean(e^2) + 0.01 * sum(w^2), e = x w - y, and its gradient with respect to w.
  [[nodiscard]] double value() const { return 0.5 * (x * w - y).square().mean() + 0.01 * w.square().sum(); }
  [[nodiscard]] Eigen::ArrayXd gradient() const { return (x * w - y) * x / double(x.size()) + 0.02 * w; }
  // The bare side's parts: sum(e^2) with gradient 2 e x, and sum(w^2) with 2 w.
  [[nodiscard]] double fit() const { return (x * w - y).square().sum(); }
  [[nodiscard]] Eigen::ArrayXd fit_gradient() const { return 2.0 * (x * w - y) * x; }
  [[nodiscard]] double penalty() const { return w.square().sum(); }
};

auto r3_loss(const auto& x, const auto& y, const auto& w) {
  return 0.5 * fg::mean((x * w - y) * (x * w - y)) + 0.01 * fg::sum(w * w);
}

void r3_fused(benchmark::State& state) {
  const R3Data d(state.range(0));
  const Data x(d.x), y(d.y);
  const Vector w(d.w);
  Eigen::ArrayXd dw(d.w.size());
  fg::bench::check_value("R3/fused", fg::value_and_grad_into(r3_loss(x, y, w), std::tie(dw), w), d.value());
  fg::bench::check_gradient("R3/fused", "dw", values_of(dw), values_of(d.gradient()));
  for (auto _ : state) {
    const double value = fg::value_and_grad_into(r3_loss(x, y, w), std::tie(dw), w);
    benchmark::DoNotOptimize(value);
    benchmark::DoNotOptimize(dw.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

void r3_bare_fused(benchmark::State& state) {
  const R3Data d(state.range(0));
  const Data x(d.x), y(d.y);
  const Vector w(d.w);
  Eigen::ArrayXd dfit(d.w.size()), dpenalty(d.w.size());
  fg::bench::check_value("R3/bare_fused",
                         fg::value_and_grad_into(fg::sum((x * w - y) * (x * w - y)), std::tie(dfit), w), d.fit());
  fg::bench::check_gradient("R3/bare_fused", "dfit", values_of(dfit), values_of(d.fit_gradient()));
  fg::bench::check_value("R3/bare_fused", fg::value_and_grad_into(fg::sum(w * w), std::tie(dpenalty), w), d.penalty());
  fg::bench::check_gradient("R3/bare_fused", "dpenalty", values_of(dpenalty), values_of(2.0 * d.w));
  for (auto _ : state) {
    const double fit = fg::value_and_grad_into(fg::sum((x * w - y) * (x * w - y)), std::tie(dfit), w);
    const double penalty = fg::value_and_grad_into(fg::sum(w * w), std::tie(dpenalty), w);
    benchmark::DoNotOptimize(fit);
    benchmark::DoNotOptimize(penalty);
    benchmark::DoNotOptimize(dfit.data());
    benchmark::DoNotOptimize(dpenalty.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

void r3_tape_fused(benchmark::State& state) {
  const R3Data d(state.range(0));
  const fg::Tensor x = fg::Tensor::from(d.x), y = fg::Tensor::from(d.y);
  fg::Tensor w = fg::Tensor::from(d.w).requires_grad_();
  {
    fg::Tensor loss = r3_loss(x, y, w);
    loss.backward();
    fg::bench::check_value("R3/tape_fused", loss.item(), d.value());
    fg::bench::check_gradient("R3/tape_fused", "dw", values_of(w.grad()), values_of(d.gradient()));
  }
  for (auto _ : state) {
    w.zero_grad();
    fg::Tensor loss = r3_loss(x, y, w);
    loss.backward();
    benchmark::DoNotOptimize(loss.item());
    benchmark::DoNotOptimize(w.grad().data());
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

void r3_bare_tape_fused(benchmark::State& state) {
  const R3Data d(state.range(0));
  const fg::Tensor x = fg::Tensor::from(d.x), y = fg::Tensor::from(d.y);
  fg::Tensor w = fg::Tensor::from(d.w).requires_grad_();
  {
    fg::Tensor fit = fg::sum((x * w - y) * (x * w - y));
    fg::Tensor penalty = fg::sum(w * w);
    fit.backward();
    penalty.backward();
    fg::bench::check_value("R3/bare_tape_fused", fit.item(), d.fit());
    fg::bench::check_value("R3/bare_tape_fused", penalty.item(), d.penalty());
    fg::bench::check_gradient("R3/bare_tape_fused", "dw", values_of(w.grad()), values_of(d.fit_gradient() + 2.0 * d.w));
  }
  for (auto _ : state) {
    w.zero_grad();
    fg::Tensor fit = fg::sum((x * w - y) * (x * w - y));
    fg::Tensor penalty = fg::sum(w * w);
    fit.backward();
    penalty.backward();
    benchmark::DoNotOptimize(fit.item());
    benchmark::DoNotOptimize(penalty.item());
    benchmark::DoNotOptimize(w.grad().data());
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

void sizes(benchmark::internal::Benchmark* b) {
  b->Arg(1024)->Arg(65536);
  b->Unit(benchmark::kMicrosecond);
}

}  // namespace

BENCHMARK(b1_fused<1>)->Name("R1/fused")->Apply(sizes);
BENCHMARK(b1_fused<0>)->Name("R1/bare_fused")->Apply(sizes);
BENCHMARK(b1_tape_fused<1>)->Name("R1/tape_fused")->Apply(sizes);
BENCHMARK(b1_tape_fused<0>)->Name("R1/bare_tape_fused")->Apply(sizes);
BENCHMARK(b1_fused<2>)->Name("R2/fused")->Apply(sizes);
BENCHMARK(b1_fused<0>)->Name("R2/bare_fused")->Apply(sizes);
BENCHMARK(b1_tape_fused<2>)->Name("R2/tape_fused")->Apply(sizes);
BENCHMARK(b1_tape_fused<0>)->Name("R2/bare_tape_fused")->Apply(sizes);
BENCHMARK(r3_fused)->Name("R3/fused")->Apply(sizes);
BENCHMARK(r3_bare_fused)->Name("R3/bare_fused")->Apply(sizes);
BENCHMARK(r3_tape_fused)->Name("R3/tape_fused")->Apply(sizes);
BENCHMARK(r3_bare_tape_fused)->Name("R3/bare_tape_fused")->Apply(sizes);

BENCHMARK_MAIN();
