// ops/sum.hpp -- sum over all or chosen axes, and its vector-Jacobian product.
#pragma once

#include <string_view>
#include <utility>

#include <fusegrad/detail/make_node.hpp>
#include <fusegrad/ops/reduction_axes.hpp>
#include <fusegrad/shape/reduce_broadcast.hpp>

namespace fusegrad {

/// Sum over the axes A (Axes<...> or AllAxes), keeping them as 1 when K is keep_dims::yes.
///   value: y = sum_{reduced axes} x
///   vjp:   dx = dy broadcast back over the reduced axes
struct sum_op_base {
  static constexpr std::string_view name = "sum";
  static constexpr std::string_view backward_name = "SumBackward";
  static constexpr vjp_needs needs = vjp_needs::none;
  static constexpr std::size_t arity = 1;
};

template <AxesType A, keep_dims K>
struct sum_op : sum_op_base {
  static constexpr bool reduces_all_linearly = std::is_same_v<A, AllAxes>;
  template <class T>
  static T divisor(std::size_t /*n*/) {
    return T(1);
  }

  template <ShapeLike S>
  using result_shape = reduced_shape_t<S, A, K>;
  static Extents result_extents(const Extents& x) { return detail::reduced_extents<A, K>(x, "fusegrad::sum"); }

  template <class T>
  static void value(T* y, const operands<T, 1>& in) {
    const Extents kept = detail::kept_extents<A>(in.extents[0], "fusegrad::sum");
    std::fill(y, y + kept.size(), T(0));
    reduce_broadcast_into(y, in.values[0], in.extents[0], kept);
  }
  template <std::size_t I, class T>
  static void vjp(T* dx, const T* dy, const operands<T, 1>& in, const T* /*y*/) {
    broadcast_into(dx, dy, detail::kept_extents<A>(in.extents[0], "fusegrad::sum"), in.extents[0]);
  }
};

/// Sum of all elements: y = sum_i x_i; dx = dy everywhere.
/// `fg::sum(x, fg::axes<1>)` sums axis 1; `fg::sum(x, fg::axes<1>, fg::keepdims)` keeps it as 1.
template <Differentiable X, class A = AllAxes, keep_dims K = keep_dims::no>
[[nodiscard]] constexpr auto sum(X&& x, A = {}, std::integral_constant<keep_dims, K> = {}) {
  return detail::make_materialized<sum_op<detail::checked_axes_t<A>, K>>(std::forward<X>(x));
}

}  // namespace fusegrad
