// ops/clamp.hpp -- clamp: values limited to [lo, hi], the gradient passing where they were inside.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <string_view>
#include <utility>

#include <fusegrad/detail/make_node.hpp>

namespace fusegrad {

/// x limited to [lo, hi] (PyTorch's clamp: min(max(x, lo), hi), so hi wins when lo > hi;
/// NaN stays NaN, and a NaN bound makes every value NaN).
///   value: y = x < lo ? lo : x > hi ? hi : x, then hi where lo > hi
///   vjp:   dx = dy where lo <= x <= hi, else 0 (both bounds pass the gradient, as PyTorch)
struct clamp_op {
  static constexpr std::string_view name = "clamp";
  static constexpr std::string_view backward_name = "ClampBackward";
  static constexpr vjp_needs needs = vjp_needs::input;
  static constexpr bool analytic = false;  // kinks at the bounds
  static constexpr std::size_t arity = 1;

  double lo = -std::numeric_limits<double>::infinity();
  double hi = std::numeric_limits<double>::infinity();

  template <ShapeLike S>
  using result_shape = S;
  static Extents result_extents(const Extents& x) { return x; }

  template <class T>
  void value(T* y, const operands<T, 1>& in) const {
    const T low(lo), high(hi);
    if (std::isnan(low) || std::isnan(high)) {  // PyTorch's max and min pass NaN on: a NaN bound makes every value NaN
      std::fill_n(y, in.extents[0].size(), std::numeric_limits<T>::quiet_NaN());
      return;
    }
    std::transform(in.values[0], in.values[0] + in.extents[0].size(), y, [&](T x) {
      const T raised = x < low ? low : x;
      return raised > high ? high : raised;
    });
  }
  template <std::size_t I, class T>
  void vjp(T* dx, const T* dy, const operands<T, 1>& in, const T* /*y*/) const {
    const T low(lo), high(hi);
    const T* x = in.values[0];
    for (std::size_t i = 0; i < in.extents[0].size(); ++i) dx[i] = x[i] >= low && x[i] <= high ? dy[i] : T(0);
  }
};

/// x limited to [lo, hi]: `fg::clamp(x, 0.0, 1.0)`.
template <Differentiable X>
[[nodiscard]] auto clamp(X&& x, double lo, double hi) {
  return detail::make_materialized_with(clamp_op{lo, hi}, std::forward<X>(x));
}
/// x limited from below: `fg::clamp_min(x, 1e-12)`.
template <Differentiable X>
[[nodiscard]] auto clamp_min(X&& x, double lo) {
  return detail::make_materialized_with(clamp_op{lo, std::numeric_limits<double>::infinity()}, std::forward<X>(x));
}
/// x limited from above.
template <Differentiable X>
[[nodiscard]] auto clamp_max(X&& x, double hi) {
  return detail::make_materialized_with(clamp_op{-std::numeric_limits<double>::infinity(), hi}, std::forward<X>(x));
}

}  // namespace fusegrad
