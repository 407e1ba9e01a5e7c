// ops/argmax.hpp -- where the largest element is, over one axis or all of them; no gradient flows through it.
#pragma once

#include <cstddef>
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include <fusegrad/detail/buffer.hpp>
#include <fusegrad/detail/make_node.hpp>
#include <fusegrad/error.hpp>
#include <fusegrad/ops/max.hpp>
#include <fusegrad/ops/min.hpp>
#include <fusegrad/ops/reduction_axes.hpp>
#include <fusegrad/shape/resolve_axis.hpp>

namespace fusegrad {

namespace detail {
// The position of the extremum in the order Order over the axes A: over one axis, the index
// along it; over all axes, the flat row-major index (PyTorch's argmax(x, dim) and argmax(x)).
// The first extremum wins a tie, a NaN wins over numbers, as the value of max and min.
// Indices are values of the tensor's scalar type, exact up to 2^24 in float and 2^53 in double: past that, nearby
// indices would round to one value, so a longer axis (or tensor, for the flat index) throws value_error.
//   value: y_g = the index of the first extremum of group g
//   vjp:   0: an index is piecewise constant in x (never called: the op is not differentiable)
template <class Order, AxesType A, keep_dims K>
struct arg_extremum_op : Order {
  static constexpr bool over_all_axes = std::is_same_v<A, AllAxes>;
  static_assert(over_all_axes || extremum_op<Order, A, K>::one_axis,
                "fusegrad::argmax/argmin: give one axis (fg::axes<1>) or none (the flat index over all axes)");
  static constexpr vjp_needs needs = vjp_needs::none;
  static constexpr bool differentiable = false;  // indices take no gradient, as PyTorch's
  static constexpr bool analytic = false;        // piecewise constant: no complex form (check/gradcheck.hpp)
  static constexpr std::size_t arity = 1;

  template <ShapeLike S>
  using result_shape = reduced_shape_t<S, A, K>;
  static Extents result_extents(const Extents& x) { return extremum_op<Order, A, K>::result_extents(x); }

  template <class T>
  static void value(T* y, const operands<T, 1>& in) {
    const T* x = in.values[0];
    const Extents& extents = in.extents[0];
    const Extents kept = kept_extents<A>(extents, Order::name.data());
    // The index of element i along the reduced axis: (i / inner) % extent; over all axes, i.
    std::size_t inner = 1, extent = extents.size();
    if constexpr (!over_all_axes) {
      for (std::size_t r = A::values[0] + 1; r < extents.rank(); ++r) inner *= extents[r];
      extent = extent_along(extents, A::values[0]);  // 1 for a scalar's axis 0
    }
    if constexpr (std::numeric_limits<T>::digits < std::numeric_limits<std::size_t>::digits) {
      constexpr std::size_t exact = std::size_t(1) << std::numeric_limits<T>::digits;
      if (extent > exact + 1)
        throw value_error(std::string("fusegrad::") + std::string(Order::name) + ": the indices of " +
                          std::to_string(extent) + (over_all_axes ? " elements" : " positions along the axis") +
                          " do not all fit in " + std::string(scalar_name<T>()) +
                          " (its integers are consecutive up to " + std::to_string(exact) +
                          "); take them of the tensor in a wider scalar type (t.to<double>() for float)");
    }
    small_buffer<T> best(kept.size(), T(0));
    small_buffer<unsigned char> found(kept.size(), 0);
    for_each_reduced_element(extents, kept, [&](std::size_t i, std::size_t g) {
      if (!found[g] || extremum_op<Order, A, K>::replaces(x[i], best[g])) {
        best[g] = x[i];
        found[g] = 1;
        y[g] = T(static_cast<double>((i / inner) % extent));
      }
    });
  }
  template <std::size_t I, class T>
  static void vjp(T* dx, const T* /*dy*/, const operands<T, 1>& in, const T* /*y*/) {
    std::fill(dx, dx + in.extents[0].size(), T(0));
  }
};

struct argmax_order : max_order {
  static constexpr std::string_view name = "argmax";
  static constexpr std::string_view backward_name = "ArgmaxBackward";
};
struct argmin_order : min_order {
  static constexpr std::string_view name = "argmin";
  static constexpr std::string_view backward_name = "ArgminBackward";
};
}  // namespace detail

template <AxesType A = AllAxes, keep_dims K = keep_dims::no>
using argmax_op = detail::arg_extremum_op<detail::argmax_order, A, K>;

/// The index of the largest element: `fg::argmax(x, fg::axes<1>)` along axis 1 (a class index
/// per row), `fg::argmax(x)` the flat index over all axes. Values of x's scalar type; no
/// gradient flows through them. `fg::argmin` in ops/argmin.hpp.
template <Differentiable X, class A = AllAxes, keep_dims K = keep_dims::no>
[[nodiscard]] constexpr auto argmax(X&& x, A = {}, std::integral_constant<keep_dims, K> = {}) {
  return detail::make_materialized<argmax_op<detail::checked_axes_t<A>, K>>(std::forward<X>(x));
}

}  // namespace fusegrad
