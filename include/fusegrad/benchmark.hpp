// benchmark.hpp -- a user's function timed as fusegrad can differentiate it: fused (static Vars), recorded as
// one tape node, and taped one node per operation, beside a hand-written gradient when given, all registered
// with Google Benchmark after their gradients are checked to agree. Needs Google Benchmark (link
// benchmark::benchmark); <fusegrad/fusegrad.hpp> does not include it. Example: examples/fused_vs_taped.cpp.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <memory>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include <benchmark/benchmark.h>

#include <fusegrad/benchmark/gradient_state.hpp>
#include <fusegrad/benchmark/ratio_reporter.hpp>

namespace fusegrad {

/// The benchmarks register_gradient_benchmarks registered for one function: add a hand-written
/// gradient to compare against, or apply Google Benchmark settings to all of them.
template <class F, class... Inputs>
class GradientBenchmarks {
  using state_type = detail::gradient_benchmark_state<F, Inputs...>;
  using T = typename state_type::T;

 public:
  explicit GradientBenchmarks(std::shared_ptr<state_type> state) : state_(std::move(state)) {
    register_variant("fused", [](state_type& s, benchmark::State& timing) {
      for (auto _ : timing) {
        const auto result = s.fused();
        keep(result);
      }
    });
    register_variant("tape_fused", [](state_type& s, benchmark::State& timing) {
      for (auto _ : timing) {
        s.tape(false);
        benchmark::DoNotOptimize(s.last_value().data());
      }
    });
    register_variant("taped", [](state_type& s, benchmark::State& timing) {
      for (auto _ : timing) {
        s.tape(true);
        benchmark::DoNotOptimize(s.last_value().data());
      }
    });
  }

  /// Adds `handwritten`, the gradient written by hand, as the variant "handwritten". It is called as
  /// `handwritten(inputs..., gradients...)`: every input as a flat Eigen array of its values
  /// (row-major), then one writable flat array per Var to fill with that Var's gradient; it returns
  /// the function's value. Throws fusegrad::value_error when its value or a gradient differs from
  /// fusegrad's, registering no "handwritten" variant (the three above are registered already). The value agrees
  /// within 1e-10 (1e-4 for float) of itself or of 1, whichever is larger, a gradient element within 1e-10 of the
  /// largest of its Var's gradient; both also within `atol`: give one where a gradient cancels to rounding noise
  /// (`sum(x * b)` over centred data, whose value cancels with it), which two right orders of summation give
  /// differently.
  template <class H>
  GradientBenchmarks& handwritten(H handwritten, double atol = 0) {
    if (!(atol >= 0 && std::isfinite(atol)))
      throw value_error("fusegrad::GradientBenchmarks::handwritten(fn, atol): atol must be a number >= 0, not " +
                        detail::number_text(atol));
    const auto [value, gradients] = state_->fused_gradients();
    const T got = state_->call_handwritten(handwritten);
    const double rtol = detail::gradient_rtol<T>;
    detail::require_same_value(state_->name(), "hand-written", "fused", got, value, rtol, atol);
    detail::require_same_gradients(state_->name(), "hand-written", "fused", state_->handwritten_gradients(), gradients,
                                   state_type::vars, rtol, atol);
    register_variant("handwritten", [handwritten](state_type& s, benchmark::State& timing) mutable {
      for (auto _ : timing) {
        T v = s.call_handwritten(handwritten);  // not const: Google Benchmark 1.8 deprecates DoNotOptimize(const T&)
        benchmark::DoNotOptimize(v);
        benchmark::ClobberMemory();
      }
    });
    return *this;
  }

  /// Calls `setting(benchmark)` on every benchmark registered so far, e.g.
  /// `.apply([](auto* b) { b->Unit(benchmark::kMicrosecond)->Repetitions(9); })`. Not Threads(n): the
  /// variants share their inputs' state; nor Args: the size is the inputs'.
  template <class Setting>
  GradientBenchmarks& apply(Setting setting) {
    for (registered_benchmark b : registered_) setting(b);
    return *this;
  }

 private:
  template <class Body>
  void register_variant(const char* variant, Body body) {
    const std::string name = state_->name() + "/" + variant + "/" + std::to_string(state_->largest_input());
    registered_.push_back(benchmark::RegisterBenchmark(
        name.c_str(), [state = state_, body](benchmark::State& timing) mutable { body(*state, timing); }));
  }
  template <class Result>
  static void keep(const Result& result) {
    std::apply(
        [](const auto&... part) {
          (
              [&] {
                if constexpr (requires { part.data(); }) {
                  benchmark::DoNotOptimize(part.data());
                } else {
                  auto value = part;  // a copy that may change: see above
                  benchmark::DoNotOptimize(value);
                }
              }(),
              ...);
        },
        result);
    benchmark::ClobberMemory();
  }

  // What RegisterBenchmark returns: benchmark::internal::Benchmark*, named benchmark::Benchmark* from Google Benchmark
  // 1.9 on (which deprecates the old name).
  using registered_benchmark = decltype(benchmark::RegisterBenchmark("", [](benchmark::State&) {}));
  std::shared_ptr<state_type> state_;
  std::vector<registered_benchmark> registered_;
};

namespace detail {

// register_gradient_benchmarks once its inputs are known to be owning Vars and Consts. Each
// requirement is one static assertion; the body is compiled only when all hold, so a mistake
// gives one diagnostic.
template <class F, class... Inputs>
auto register_checked_gradient_benchmarks(std::string name, F fn, const Inputs&... inputs) {
  using state_type = gradient_benchmark_state<F, Inputs...>;
  using T = typename state_type::T;
  constexpr bool one_scalar_type = (std::is_same_v<typename Inputs::value_type, T> && ...);
  constexpr bool some_var = (Inputs::takes_grad || ...);
  constexpr bool takes_leaves = std::invocable<const F&, const typename benchmark_input<Inputs>::view_type&...>;
  constexpr bool takes_tensors =
      std::invocable<const F&, const decltype((void)std::declval<Inputs>(), BasicTensor<T>())&...>;
  static_assert(one_scalar_type,
                "fusegrad::register_gradient_benchmarks(name, fn, inputs...): every input has the same scalar type");
  static_assert(some_var,
                "fusegrad::register_gradient_benchmarks(name, fn, inputs...): at least one input is an fg::Var");
  static_assert(takes_leaves,
                "fusegrad::register_gradient_benchmarks(name, fn, inputs...): fn must take the inputs as static leaves "
                "(write it as a generic lambda: [](const auto& x, ...) { ... })");
  static_assert(takes_tensors,
                "fusegrad::register_gradient_benchmarks(name, fn, inputs...): fn must also take the inputs as "
                "fg::BasicTensor (write it as a generic lambda: [](const auto& x, ...) { ... })");
  if constexpr (one_scalar_type && some_var && takes_leaves && takes_tensors) {
    auto state = std::make_shared<state_type>(std::move(name), std::move(fn), inputs...);
    const double rtol = gradient_rtol<T>;
    const auto [fused_value, fused] = state->fused_gradients();
    state->tape(true);
    const auto taped = state->tape_gradients();
    const T taped_value = state->last_value().item();
    state->tape(false);
    require_same_value(state->name(), "tape_fused", "taped", state->last_value().item(), taped_value, rtol);
    require_same_value(state->name(), "fused", "taped", fused_value, taped_value, rtol);
    require_same_gradients(state->name(), "tape_fused", "taped", state->tape_gradients(), taped, state_type::vars,
                           rtol);
    require_same_gradients(state->name(), "fused", "taped", fused, taped, state_type::vars, rtol);
    auto& names = gradient_benchmark_names();
    if (std::find(names.begin(), names.end(), state->name() + "/") == names.end()) names.push_back(state->name() + "/");
    return GradientBenchmarks<F, Inputs...>(std::move(state));
  }
}

}  // namespace detail

/// Registers, with Google Benchmark, the forward and backward pass of `fn` three ways: "fused"
/// (value_and_grad over static Vars), "tape_fused" (fn over Tensors, recorded as one node) and
/// "taped" (fusegrad::taped, one node per operation), named `<name>/<variant>/<N>` with N the
/// largest input's element count. `fn` is written once for both layers, as a generic lambda
/// taking its leaves by reference: `[](const auto& x, const auto& w) { return fg::sum(...); }`,
/// returning one value. The inputs are fg::Var (their gradients are taken) and fg::Const (data)
/// that own their values; they are copied, and so are `fn` and a hand-written gradient, which run
/// when the benchmarks do: what they capture by reference must live as long. Before registering, the
/// three variants' values and gradients are compared: a difference throws fusegrad::value_error. Add
/// `.handwritten(...)` to compare with a gradient written by hand. Returns a GradientBenchmarks.
/// Example: examples/fused_vs_taped.cpp.
template <class F, class... Inputs>
auto register_gradient_benchmarks(std::string name, F fn, const Inputs&... inputs) {
  constexpr bool owning_leaves = sizeof...(Inputs) > 0 && (detail::benchmark_input<Inputs>::value && ...);
  static_assert(owning_leaves,
                "fusegrad::register_gradient_benchmarks(name, fn, inputs...): the inputs are fg::Var (differentiated) "
                "and fg::Const (data) that own their values");
  if constexpr (owning_leaves)
    return detail::register_checked_gradient_benchmarks(std::move(name), std::move(fn), inputs...);
}

}  // namespace fusegrad
