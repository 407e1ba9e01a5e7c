// ops/argmin.hpp -- where the smallest element is, over one axis or all of them; no gradient flows through it.
#pragma once

#include <string_view>
#include <utility>

#include <fusegrad/detail/make_node.hpp>
#include <fusegrad/ops/argmax.hpp>

namespace fusegrad {

/// argmin's op spec: detail::arg_extremum_op in the order of min (ops/argmax.hpp).
template <AxesType A = AllAxes, keep_dims K = keep_dims::no>
using argmin_op = detail::arg_extremum_op<detail::argmin_order, A, K>;

/// The index of the smallest element: `fg::argmin(x, fg::axes<0>)`, `fg::argmin(x)` (flat).
template <Differentiable X, class A = AllAxes, keep_dims K = keep_dims::no>
[[nodiscard]] constexpr auto argmin(X&& x, A = {}, std::integral_constant<keep_dims, K> = {}) {
  return detail::make_materialized<argmin_op<detail::checked_axes_t<A>, K>>(std::forward<X>(x));
}

}  // namespace fusegrad
