// ops/min.hpp -- the smallest element, over all or chosen axes, and its vector-Jacobian product.
#pragma once

#include <limits>
#include <string_view>
#include <utility>

#include <fusegrad/detail/make_node.hpp>
#include <fusegrad/ops/extremum.hpp>

namespace fusegrad {

/// The smallest element over the axes A (see detail::extremum_op for value and VJP):
///   value: y = min_{reduced axes} x (NaN if any is NaN)
///   vjp:   over one axis, dy to the first minimal element of each group (PyTorch's min(x, dim));
///          over several or all axes, dy / k to each of the k elements equal to y (PyTorch's amin, min(x))
struct min_order {
  static constexpr std::string_view name = "min";
  static constexpr std::string_view backward_name = "MinBackward";
  static constexpr std::string_view noun = "minimum";
  template <class T>
  static constexpr T start() {
    return std::numeric_limits<T>::infinity();
  }
  template <class T>
  static constexpr bool before(T a, T b) {
    return a < b;
  }
};
template <AxesType A = AllAxes, keep_dims K = keep_dims::no>
using min_op = detail::extremum_op<min_order, A, K>;

/// The smallest element: `fg::min(x)`, `fg::min(x, fg::axes<0>)`, `fg::min(x, fg::axes<0>, fg::keepdims)`.
template <Differentiable X, class A = AllAxes, keep_dims K = keep_dims::no>
[[nodiscard]] constexpr auto min(X&& x, A = {}, std::integral_constant<keep_dims, K> = {}) {
  return detail::make_materialized<min_op<detail::checked_axes_t<A>, K>>(std::forward<X>(x));
}

}  // namespace fusegrad
