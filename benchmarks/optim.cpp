// optim.cpp -- O1: one Adam step over a parameter of N values, fg::optim::Adam against the same update written by hand
// with Eigen as three array statements (the moments, then the parameter: "handwritten") and as one vectorised loop
// over the values ("single_loop", handwritten_loops/adam_step.cpp). Every variant's parameter after a step is checked
// before it is timed: fusegrad's and the three statements' against the loop's, the loop's against the statements'.
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <cstdlib>

#include <benchmark/benchmark.h>

#include <fusegrad/fusegrad.hpp>
#include <fusegrad/optim.hpp>

#include "bench_common.hpp"

namespace fg = fusegrad;

namespace fusegrad::bench {
// handwritten_loops/adam_step.cpp: m, v and p updated in one loop, vectorised (-fno-math-errno).
void adam_loop(double* p, double* m, double* v, const double* g, std::size_t n, double beta1, double beta2, double eps,
               double step_size, double correction2_sqrt);
}  // namespace fusegrad::bench

namespace {

constexpr double lr = 1e-3, beta1 = 0.9, beta2 = 0.999, eps = 1e-8;

struct AdamState {
  Eigen::ArrayXd p, g, m, v;
  long steps = 0;
  explicit AdamState(Eigen::Index n)
      : p(fg::bench::uniform(n, -1, 1, 1)),
        g(fg::bench::uniform(n, -1, 1, 2)),
        m(Eigen::ArrayXd::Zero(n)),
        v(Eigen::ArrayXd::Zero(n)) {}
};

// What a careful engineer writes: one pass, the bias corrections hoisted.
void loop_step(AdamState& s) {
  ++s.steps;
  const double step_size = lr / (1 - std::pow(beta1, double(s.steps)));
  const double correction2_sqrt = std::sqrt(1 - std::pow(beta2, double(s.steps)));
  fg::bench::adam_loop(s.p.data(), s.m.data(), s.v.data(), s.g.data(), std::size_t(s.p.size()), beta1, beta2, eps,
                       step_size, correction2_sqrt);
}

void statements_step(AdamState& s) {
  ++s.steps;
  const double step_size = lr / (1 - std::pow(beta1, double(s.steps)));
  const double correction2_sqrt = std::sqrt(1 - std::pow(beta2, double(s.steps)));
  s.m = beta1 * s.m + (1 - beta1) * s.g;
  s.v = beta2 * s.v + (1 - beta2) * s.g.square();
  s.p -= step_size * s.m / (s.v.sqrt() / correction2_sqrt + eps);
}

// A parameter tensor whose gradient is the state's g (set by one backward, kept across steps).
fg::Tensor parameter_with_gradient(const AdamState& s) {
  fg::Tensor p = fg::Tensor::from(s.p, {std::size_t(s.p.size())}).requires_grad_();
  const fg::ConstTensor g(fg::Tensor::from(s.g, {std::size_t(s.g.size())}));
  fg::Tensor(fg::sum(p * g)).backward();
  return p;
}

// A variant's parameter after one step against the reference's, element by element.
void check(const double* got, const AdamState& reference, const char* variant) {
  const auto n = std::size_t(reference.p.size());
  fg::bench::check_values(variant, "the parameter after one step", std::span(got, n), std::span(reference.p.data(), n),
                          1e-12, fg::bench::relative_to::each);
}

void adam_single_loop(benchmark::State& state) {
  AdamState s(state.range(0)), reference(state.range(0));
  loop_step(s);
  statements_step(reference);
  check(s.p.data(), reference, "the single loop (against the three statements)");
  for (auto _ : state) {
    loop_step(s);
    benchmark::DoNotOptimize(s.p.data());
  }
}

void adam_handwritten(benchmark::State& state) {
  AdamState s(state.range(0)), reference(state.range(0));
  statements_step(s);
  loop_step(reference);
  check(s.p.data(), reference, "three Eigen statements");
  for (auto _ : state) {
    statements_step(s);
    benchmark::DoNotOptimize(s.p.data());
  }
}

void adam_fused(benchmark::State& state) {
  AdamState reference(state.range(0));
  fg::Tensor p = parameter_with_gradient(reference);
  fg::optim::Adam opt({p}, {.lr = lr, .beta1 = beta1, .beta2 = beta2, .eps = eps});
  opt.step();
  loop_step(reference);
  check(p.data(), reference, "fg::optim::Adam");
  for (auto _ : state) {
    opt.step();
    benchmark::DoNotOptimize(p.data());
  }
}

}  // namespace

BENCHMARK(adam_handwritten)->Name("O1/handwritten")->Arg(1024)->Arg(1 << 20);
BENCHMARK(adam_single_loop)->Name("O1/single_loop")->Arg(1024)->Arg(1 << 20);
BENCHMARK(adam_fused)->Name("O1/fused")->Arg(1024)->Arg(1 << 20);

BENCHMARK_MAIN();
