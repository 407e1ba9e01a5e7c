// benchmark.hpp -- a user's function timed as fusegrad can differentiate it: fused (static Vars), recorded as
// one tape node, and taped one node per operation, beside a hand-written gradient when given, all registered
// with Google Benchmark after their gradients are checked to agree. Needs Google Benchmark (link
// benchmark::benchmark); <fusegrad/fusegrad.hpp> does not include it. Example: examples/fused_vs_taped.cpp.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <limits>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#if __has_include(<unistd.h>)
#include <unistd.h>
#endif

#include <benchmark/benchmark.h>
#include <Eigen/Core>

#include <fusegrad/fusegrad.hpp>  // the functions timed are written with all of it

namespace fusegrad {

namespace detail {

// An input of a benchmarked function: a Var (differentiated) or a Const (data) that owns its
// values. The static layer reads them through views of the same kind, the tape as tensors.
template <class L>
struct benchmark_input : std::false_type {};
template <Scalar T, ShapeType S>
struct benchmark_input<Var<T, S>> : std::true_type {
  using view_type = Var<T, S, view>;
};
template <Scalar T, ShapeType S>
struct benchmark_input<Const<T, S>> : std::true_type {
  using view_type = Const<T, S, view>;
};

// Where the Vars are among the inputs, in order: the leaves value_and_grad is asked for.
template <class... Inputs>
inline constexpr auto var_positions = [] {
  constexpr std::array<bool, sizeof...(Inputs)> takes_grad{Inputs::takes_grad...};
  std::array<std::size_t, (std::size_t{Inputs::takes_grad} + ... + 0)> positions{};
  for (std::size_t i = 0, k = 0; i < takes_grad.size(); ++i)
    if (takes_grad[i]) positions[k++] = i;
  return positions;
}();

template <class G>
auto flat_values(const G& g) {
  if constexpr (is_tensor_v<G>)
    return std::vector<typename G::value_type>(g.data(), g.data() + g.numel());
  else if constexpr (requires { g.data(); })
    return std::vector<typename G::Scalar>(g.data(), g.data() + g.size());
  else
    return std::vector<G>{g};  // a Shape<> var's gradient is a number
}

// The names registered by register_gradient_benchmarks, for run_gradient_benchmarks' summary.
inline std::vector<std::string>& gradient_benchmark_names() {
  static std::vector<std::string> names;
  return names;
}

// One benchmarked function: copies of its inputs, the static layer's views and the tape's
// tensors over them, and the hand-written gradient's arrays. Lives as long as the
// registered benchmarks that share it.
template <class F, class... Inputs>
class gradient_benchmark_state {
 public:
  using T = typename std::tuple_element_t<0, std::tuple<Inputs...>>::value_type;
  static constexpr auto vars = var_positions<Inputs...>;

  gradient_benchmark_state(std::string name, F fn, const Inputs&... inputs)
      : name_(std::move(name)), fn_(std::move(fn)), inputs_(inputs...) {}

  gradient_benchmark_state(const gradient_benchmark_state&) = delete;  // the views point into inputs_
  gradient_benchmark_state& operator=(const gradient_benchmark_state&) = delete;

  /// value_and_grad of fn over views of the inputs: one fused sweep.
  auto fused() const {
    return std::apply(
        [this](const auto&... view) {
          return [&]<std::size_t... K>(std::index_sequence<K...>) {
            return value_and_grad(fn_(view...), std::get<vars[K]>(std::tie(view...))...);
          }
          (std::make_index_sequence<vars.size()>{});
        },
        views_);
  }

  /// fn over tensors, recorded as one fused node or (taped_per_op) one node per operation, then backward.
  void tape(bool taped_per_op) {
    [this]<std::size_t... K>(std::index_sequence<K...>) { (std::get<vars[K]>(tensors_).zero_grad(), ...); }
    (std::make_index_sequence<vars.size()>{});
    std::apply(
        [&](const auto&... tensor) {
          if (taped_per_op) {
            last_value_ = fusegrad::taped(fn_(tensor...));
          } else {
            last_value_ = BasicTensor<T>(fn_(tensor...));
          }
        },
        tensors_);
    last_value_.backward();
  }

  /// The gradients of the last tape() call, one flat vector per Var (zeros for a Var the
  /// function does not use, whose tensor receives no gradient).
  [[nodiscard]] std::vector<std::vector<T>> tape_gradients() const {
    std::vector<std::vector<T>> out;
    [&]<std::size_t... K>(std::index_sequence<K...>) {
      const auto gradient = [&](const BasicTensor<T>& tensor) {
        const BasicTensor<T> g = tensor.grad();
        return g.defined() ? flat_values(g) : std::vector<T>(tensor.numel(), T(0));
      };
      (out.push_back(gradient(std::get<vars[K]>(tensors_))), ...);
    }
    (std::make_index_sequence<vars.size()>{});
    return out;
  }

  /// The gradients of one fused() call, one flat vector per Var, and its value.
  [[nodiscard]] std::pair<T, std::vector<std::vector<T>>> fused_gradients() const {
    const auto result = fused();
    std::vector<std::vector<T>> out;
    [&]<std::size_t... K>(std::index_sequence<K...>) { (out.push_back(flat_values(std::get<K + 1>(result))), ...); }
    (std::make_index_sequence<vars.size()>{});
    return {std::get<0>(result), std::move(out)};
  }

  /// Calls the hand-written gradient: the inputs as flat arrays, then one writable array per Var.
  template <class H>
  T call_handwritten(H& handwritten) {
    return std::apply(
        [&](const auto&... input) {
          return [&]<std::size_t... K>(std::index_sequence<K...>) {
            std::tuple gradients{Eigen::Map<Eigen::Array<T, Eigen::Dynamic, 1>>(
                handwritten_grads_[K].data(), static_cast<Eigen::Index>(handwritten_grads_[K].size()))...};
            return static_cast<T>(handwritten(flat_map(input)..., std::get<K>(gradients)...));
          }
          (std::make_index_sequence<vars.size()>{});
        },
        inputs_);
  }

  [[nodiscard]] const std::string& name() const { return name_; }
  [[nodiscard]] const BasicTensor<T>& last_value() const { return last_value_; }
  [[nodiscard]] std::size_t largest_input() const {
    return std::apply([](const auto&... input) { return std::max({input.extents().size()...}); }, inputs_);
  }
  [[nodiscard]] std::vector<std::vector<T>> handwritten_gradients() const {
    return {handwritten_grads_.begin(), handwritten_grads_.end()};
  }

 private:
  static auto flat_map(const auto& input) {
    return Eigen::Map<const Eigen::Array<T, Eigen::Dynamic, 1>>(input.data(),
                                                                static_cast<Eigen::Index>(input.extents().size()));
  }
  static auto make_tensor(const auto& input) {
    auto t = BasicTensor<T>::from(std::span<const T>(input.data(), input.extents().size()), input.extents());
    if constexpr (std::remove_cvref_t<decltype(input)>::takes_grad) t.requires_grad_();
    return t;
  }

  std::string name_;
  F fn_;
  std::tuple<Inputs...> inputs_;
  std::tuple<typename benchmark_input<Inputs>::view_type...> views_ = std::apply(
      [](const auto&... input) {
        return std::tuple<typename benchmark_input<Inputs>::view_type...>{
            typename benchmark_input<Inputs>::view_type(input.data(), input.extents())...};
      },
      inputs_);
  std::tuple<decltype((void)std::declval<Inputs>(), BasicTensor<T>())...> tensors_ =
      std::apply([](const auto&... input) { return std::tuple{make_tensor(input)...}; }, inputs_);
  std::array<std::vector<T>, vars.size()> handwritten_grads_ = [this] {
    std::array<std::vector<T>, vars.size()> grads;
    [&]<std::size_t... K>(std::index_sequence<K...>) {
      ((grads[K] = std::vector<T>(std::get<vars[K]>(inputs_).extents().size())), ...);
    }
    (std::make_index_sequence<vars.size()>{});
    return grads;
  }();
  BasicTensor<T> last_value_;
};

inline std::string number_text(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.9g", v);
  return text;
}

// Throws unless `got` agrees with `want` for every Var to rtol relative to the largest magnitude
// of either (the function's own scale, however small), naming the variant, the input and the
// first element that differs.
template <class T, std::size_t N>
void require_same_gradients(const std::string& name, const char* variant, const char* reference,
                            const std::vector<std::vector<T>>& got, const std::vector<std::vector<T>>& want,
                            const std::array<std::size_t, N>& positions, double rtol) {
  const std::string where =
      "fusegrad::register_gradient_benchmarks(\"" + name + "\"): the " + variant + " gradient of input ";
  for (std::size_t k = 0; k < want.size(); ++k) {
    if (got[k].size() != want[k].size())
      throw value_error(where + std::to_string(positions[k]) + " has " + std::to_string(got[k].size()) +
                        " values, the " + reference + " one " + std::to_string(want[k].size()));
    double scale = std::numeric_limits<T>::min();
    for (std::size_t j = 0; j < want[k].size(); ++j)
      scale = std::max({scale, double(std::abs(want[k][j])), double(std::abs(got[k][j]))});
    for (std::size_t j = 0; j < want[k].size(); ++j) {
      const double difference = std::abs(double(got[k][j]) - double(want[k][j]));
      if (difference <= rtol * scale) continue;
      throw value_error(where + std::to_string(positions[k]) + " differs from the " + reference + " one at element " +
                        std::to_string(j) + ": " + number_text(got[k][j]) + " against " + number_text(want[k][j]) +
                        " (allowed: " + number_text(rtol * scale) + ", " + number_text(rtol) +
                        " of the largest gradient)");
    }
  }
}

template <class T>
constexpr double gradient_rtol = std::is_same_v<T, float> ? 1e-4 : 1e-10;

}  // namespace detail

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
  /// the function's value. Throws fusegrad::value_error, registering nothing, when its value or a
  /// gradient differs from fusegrad's.
  template <class H>
  GradientBenchmarks& handwritten(H handwritten) {
    const auto [value, gradients] = state_->fused_gradients();
    const T got = state_->call_handwritten(handwritten);
    const double rtol = detail::gradient_rtol<T>;
    const double scale =
        std::max({double(std::numeric_limits<T>::min()), std::abs(double(got)), std::abs(double(value))});
    if (!(std::abs(double(got) - double(value)) <= rtol * scale))
      throw value_error("fusegrad::register_gradient_benchmarks(\"" + state_->name() +
                        "\"): the hand-written function returned " + detail::number_text(got) + ", fusegrad computes " +
                        detail::number_text(value) + "; it must return the function's value");
    detail::require_same_gradients(state_->name(), "hand-written", "fused", state_->handwritten_gradients(), gradients,
                                   state_type::vars, rtol);
    register_variant("handwritten", [handwritten](state_type& s, benchmark::State& timing) mutable {
      for (auto _ : timing) {
        const T v = s.call_handwritten(handwritten);
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
    for (benchmark::internal::Benchmark* b : registered_) setting(b);
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
                if constexpr (requires { part.data(); })
                  benchmark::DoNotOptimize(part.data());
                else
                  benchmark::DoNotOptimize(part);
              }(),
              ...);
        },
        result);
    benchmark::ClobberMemory();
  }

  std::shared_ptr<state_type> state_;
  std::vector<benchmark::internal::Benchmark*> registered_;
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
    const auto fused = state->fused_gradients().second;
    state->tape(true);
    const auto taped = state->tape_gradients();
    state->tape(false);
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
/// three variants' gradients are compared: a difference throws fusegrad::value_error. Add
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

namespace detail {

// Google Benchmark's console output, then for every function registered by
// register_gradient_benchmarks one line of its variants' CPU times and ratios.
class gradient_ratio_reporter : public benchmark::ConsoleReporter {
 public:
  gradient_ratio_reporter() : ConsoleReporter(colour_if_terminal()) {}

  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& run : runs) {
      const bool usable = run.run_type == Run::RT_Aggregate ? run.aggregate_name == "median" : run.repetitions <= 1;
      if (usable && !run.error_occurred)
        cpu_ns_[run.run_name.function_name] =
            run.GetAdjustedCPUTime() * 1e9 / benchmark::GetTimeUnitMultiplier(run.time_unit);
    }
    ConsoleReporter::ReportRuns(runs);
  }

  void Finalize() override {
    ConsoleReporter::Finalize();
    for (const std::string& prefix : gradient_benchmark_names()) {
      for (auto [name, fused] : cpu_ns_) {
        // name is <prefix>fused/<N>: print that N's line.
        if (name.rfind(prefix + "fused/", 0) != 0) continue;
        const std::string size = name.substr(prefix.size() + 6);
        const auto time = [&](const char* variant) {
          const auto found = cpu_ns_.find(prefix + variant + "/" + size);
          return found == cpu_ns_.end() ? -1.0 : found->second;
        };
        std::printf("\n%sN=%s: fused %s", prefix.c_str(), size.c_str(), readable(fused).c_str());
        for (const char* variant : {"tape_fused", "taped"})
          if (const double t = time(variant); t >= 0)
            std::printf(", %s %s (%.2fx fused)", variant, readable(t).c_str(), t / fused);
        if (const double t = time("handwritten"); t >= 0)
          std::printf(", hand-written %s (fused / hand-written %.2f)", readable(t).c_str(), fused / t);
        std::printf("\n");
      }
    }
  }

 private:
  static OutputOptions colour_if_terminal() {
#if __has_include(<unistd.h>)
    if (isatty(fileno(stdout))) return OO_ColorTabular;
#endif
    return OO_Tabular;
  }
  static std::string readable(double ns) {
    char text[32];
    const char* unit = ns < 1e3 ? "ns" : ns < 1e6 ? "us" : ns < 1e9 ? "ms" : "s";
    const double scale = ns < 1e3 ? 1 : ns < 1e6 ? 1e3 : ns < 1e9 ? 1e6 : 1e9;
    std::snprintf(text, sizeof text, "%.3g %s", ns / scale, unit);
    return text;
  }

  std::map<std::string, double> cpu_ns_;
};

}  // namespace detail

/// Runs the registered benchmarks (Google Benchmark's command line flags apply: --benchmark_filter,
/// --benchmark_repetitions, --benchmark_out=FILE for JSON, ...), printing its console table and
/// then, per function registered with register_gradient_benchmarks, the variants' times and ratios
/// (the median's, with repetitions). A main() for such a program.
inline int run_gradient_benchmarks(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  detail::gradient_ratio_reporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  return 0;
}

}  // namespace fusegrad
