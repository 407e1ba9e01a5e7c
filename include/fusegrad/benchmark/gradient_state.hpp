// benchmark/gradient_state.hpp -- one function as <fusegrad/benchmark.hpp> times it: copies of its inputs, the
// static layer's views and the tape's tensors over them, each variant's gradient, and the check that they agree.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include <Eigen/Core>

#include <fusegrad/detail/number_text.hpp>
#include <fusegrad/fusegrad.hpp>  // the functions timed are written with all of it

namespace fusegrad::detail {

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

// Whether two variants' results agree: equal (the same infinity, or NaN in both), or within rtol relative to `scale`
// or within atol.
inline bool agree(double got, double want, double rtol, double scale, double atol) {
  return got == want || (std::isnan(got) && std::isnan(want)) || std::abs(got - want) <= std::max(rtol * scale, atol);
}

// What a refusal of the hand-written variant adds: a result that cancels to rounding noise (a sum over centred data)
// differs between two right orders of summation by more than rtol of itself, and takes an absolute tolerance.
inline std::string atol_advice(const char* variant, double atol) {
  if (std::string_view(variant) != "hand-written") return "";
  return std::string(
             "; a result that cancels to rounding noise, such as a sum over centred data, differs between two "
             "right orders of summation by more: give .handwritten(fn, atol) ") +
         (atol > 0 ? "a larger" : "an") + " absolute tolerance";
}

// Throws unless `got`, a variant's value, agrees with `want`, the reference's: the same where either is not finite,
// else to rtol relative to the larger, or to rtol where both are below 1 (a value that is 0 up to rounding comes out
// as 0 in one variant and 1e-17 in another), or to atol.
template <class T>
void require_same_value(const std::string& name, const char* variant, const char* reference, T got, T want, double rtol,
                        double atol = 0) {
  const bool finite = std::isfinite(double(got)) && std::isfinite(double(want));
  const double scale = finite ? std::max({1.0, std::abs(double(got)), std::abs(double(want))}) : 0.0;
  if (!agree(double(got), double(want), rtol, scale, atol))
    throw value_error("fusegrad::register_gradient_benchmarks(\"" + name + "\"): the " + variant + " value is " +
                      number_text(got) + ", the " + reference + " one " + number_text(want) +
                      "; every variant must compute the same function" + atol_advice(variant, atol));
}

// Throws unless `got` agrees with `want` for every Var to rtol relative to the largest finite magnitude
// of either (the function's own scale, however small), or to atol, naming the variant, the input and the
// first element that differs.
template <class T, std::size_t N>
void require_same_gradients(const std::string& name, const char* variant, const char* reference,
                            const std::vector<std::vector<T>>& got, const std::vector<std::vector<T>>& want,
                            const std::array<std::size_t, N>& positions, double rtol, double atol = 0) {
  const std::string where =
      "fusegrad::register_gradient_benchmarks(\"" + name + "\"): the " + variant + " gradient of input ";
  for (std::size_t k = 0; k < want.size(); ++k) {
    if (got[k].size() != want[k].size())
      throw value_error(where + std::to_string(positions[k]) + " has " + std::to_string(got[k].size()) +
                        " values, the " + reference + " one " + std::to_string(want[k].size()));
    double scale = std::numeric_limits<T>::min();
    for (std::size_t j = 0; j < want[k].size(); ++j)
      for (const T v : {want[k][j], got[k][j]})
        if (std::isfinite(v)) scale = std::max(scale, double(std::abs(v)));
    for (std::size_t j = 0; j < want[k].size(); ++j) {
      if (agree(double(got[k][j]), double(want[k][j]), rtol, scale, atol)) continue;
      throw value_error(where + std::to_string(positions[k]) + " differs from the " + reference + " one at element " +
                        std::to_string(j) + ": " + number_text(got[k][j]) + " against " + number_text(want[k][j]) +
                        " (allowed: " + number_text(std::max(rtol * scale, atol)) + ", " + number_text(rtol) +
                        " of the largest gradient" + (atol > 0 ? " or " + number_text(atol) : std::string()) +
                        atol_advice(variant, atol) + ")");
    }
  }
}

template <class T>
constexpr double gradient_rtol = std::is_same_v<T, float> ? 1e-4 : 1e-10;

}  // namespace fusegrad::detail
