// ops/max.hpp -- the largest element, over all or chosen axes, and its vector-Jacobian product.
#pragma once

#include <limits>
#include <string_view>
#include <utility>

#include <fusegrad/detail/make_node.hpp>
#include <fusegrad/ops/extremum.hpp>

namespace fusegrad {

/// The largest element over the axes A (see detail::extremum_op for value and VJP):
///   value: y = max_{reduced axes} x (NaN if any is NaN)
///   vjp:   over one axis, dy to the first maximal element of each group (PyTorch's max(x, dim));
///          over several or all axes, dy / k to each of the k elements equal to y (PyTorch's amax, max(x))
struct max_order {
  static constexpr std::string_view name = "max";
  static constexpr std::string_view backward_name = "MaxBackward";
  static constexpr std::string_view noun = "maximum";
  template <class T>
  static constexpr T start() {
    return -std::numeric_limits<T>::infinity();
  }
  template <class T>
  static constexpr bool before(T a, T b) {
    return a > b;
  }
};
template <AxesType A = AllAxes, keep_dims K = keep_dims::no>
using max_op = detail::extremum_op<max_order, A, K>;

/// The largest element: `fg::max(x)`; over chosen axes, `fg::max(x, fg::axes<1>)` or
/// `fg::max(x, fg::axes<1>, fg::keepdims)`. Its gradient goes to the maximum (to the first of
/// tied maxima over one axis, shared among them over several, as in PyTorch).
template <Differentiable X, class A = AllAxes, keep_dims K = keep_dims::no>
[[nodiscard]] constexpr auto max(X&& x, A = {}, std::integral_constant<keep_dims, K> = {}) {
  return detail::make_materialized<max_op<detail::checked_axes_t<A>, K>>(std::forward<X>(x));
}

}  // namespace fusegrad
