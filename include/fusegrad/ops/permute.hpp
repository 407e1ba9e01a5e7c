// ops/permute.hpp -- permute and transpose(x, i, j): the axes of a tensor reordered.
#pragma once

#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include <fusegrad/detail/always_false.hpp>
#include <fusegrad/detail/make_node.hpp>
#include <fusegrad/error.hpp>
#include <fusegrad/ops/reduction_axes.hpp>
#include <fusegrad/shape/resolve_axis.hpp>

namespace fusegrad {

namespace detail {
// The axes of the result: result axis r is operand axis order[r].
struct axis_order {
  std::array<std::size_t, Extents::max_rank> order{};
  std::size_t rank = 0;
};

// Copies between x (extents `x`) and its permutation y: y[i_0, ..., i_n] = x at the index
// whose axis order[r] is i_r. Scatter runs it backwards (x from y), for the VJP. `source` is
// x, or y when scattering.
template <bool Scatter, class T>
void permute_copy(const T* source, T* target, const Extents& x, const axis_order& p) {
  if (x.size() == 0) return;
  std::array<std::size_t, Extents::max_rank> x_stride{}, stride{}, extent{}, index{};
  for (std::size_t r = x.rank(), s = 1; r-- > 0; s *= x[r]) x_stride[r] = s;
  for (std::size_t r = 0; r < p.rank; ++r) {
    stride[r] = x_stride[p.order[r]];
    extent[r] = x[p.order[r]];
  }
  if (p.rank == 0) {
    target[0] = source[0];
    return;
  }
  const std::size_t inner = extent[p.rank - 1], inner_stride = stride[p.rank - 1];
  std::size_t from = 0;
  for (std::size_t to = 0; to < x.size(); to += inner) {
    for (std::size_t k = 0; k < inner; ++k) {
      if constexpr (Scatter)
        target[from + k * inner_stride] = source[to + k];
      else
        target[to + k] = source[from + k * inner_stride];
    }
    for (std::size_t r = p.rank - 1; r-- > 0;) {  // the odometer over the outer result axes
      from += stride[r];
      if (++index[r] < extent[r]) break;
      from -= stride[r] * index[r];
      index[r] = 0;
    }
  }
}

// Never defined: the diagnostic of transpose(x, fg::axes<i, j>) naming an axis past x's rank.
template <class S, class Axes, fixed_text Shape>
struct transpose_axis_out_of_range_for_shape;

// Never defined: the diagnostic of a static permutation that does not fit the shape.
template <class S, class Order, fixed_text Shape>
struct permute_needs_each_axis_of_the_shape_once;

// A static order, fg::axes<2, 0, 1>.
template <std::size_t... P>
struct static_axis_order {
  static constexpr const char* what = "fusegrad::permute";  // errors start with the function's name
  static constexpr std::array<std::size_t, sizeof...(P)> values{P...};
  static constexpr bool is_permutation_of(std::size_t rank) {
    if (rank != sizeof...(P)) return false;
    std::array<bool, sizeof...(P) + 1> seen{};
    for (std::size_t a : values) {
      if (a >= rank || seen[a]) return false;
      seen[a] = true;
    }
    return true;
  }
  template <ShapeLike S>
  struct permuted {
    using type = AnyShape;
  };
  template <ShapeType S>
    requires(!is_permutation_of(S::rank))
  struct permuted<S> {
    enum : std::size_t { report = sizeof(permute_needs_each_axis_of_the_shape_once<S, Axes<P...>, shapes_text<S>>) };
    using type = S;
  };
  template <ShapeType S>
    requires(is_permutation_of(S::rank))
  struct permuted<S> {
    using type = Shape<S::extents[P]...>;
  };
  template <ShapeLike S>
  using shape = typename permuted<S>::type;

  static axis_order order(const Extents& x, std::string_view caller) {
    if (!is_permutation_of(x.rank())) {
      std::string text = "(";
      for (std::size_t a : values) text += (text.size() > 1 ? ", " : "") + std::to_string(a);
      throw shape_error(std::string(caller) + ": axes " + text + ") are not each axis of shape " + x.to_string() +
                        " once");
    }
    return {{P...}, sizeof...(P)};
  }
};

// An order given at run time (negative axes count from the end).
struct runtime_axis_order {
  static constexpr const char* what = "fusegrad::permute";
  template <ShapeLike>
  using shape = AnyShape;

  std::array<std::int64_t, Extents::max_rank> axes{};
  std::size_t rank = 0;

  [[nodiscard]] axis_order order(const Extents& x, std::string_view caller) const {
    std::string text = "(";
    for (std::size_t r = 0; r < rank; ++r) text += (r ? ", " : "") + std::to_string(axes[r]);
    text += ")";
    if (rank != x.rank())
      throw shape_error(std::string(caller) + ": " + std::to_string(rank) + " axes " + text + " for shape " +
                        x.to_string() + " of rank " + std::to_string(x.rank()) + "; give each axis once");
    axis_order p{{}, rank};
    std::array<bool, Extents::max_rank> seen{};
    for (std::size_t r = 0; r < rank; ++r) {
      p.order[r] = resolve_axis(axes[r], x.rank(), x, caller);
      if (seen[p.order[r]])
        throw shape_error(std::string(caller) + ": axes " + text + " name axis " + std::to_string(p.order[r]) +
                          " twice; give each axis of shape " + x.to_string() + " once");
      seen[p.order[r]] = true;
    }
    return p;
  }
};

// transpose(x, i, j) at run time: the order that swaps two axes.
struct runtime_axis_swap {
  static constexpr const char* what = "fusegrad::transpose";
  template <ShapeLike>
  using shape = AnyShape;

  std::int64_t first = 0, second = 1;

  [[nodiscard]] axis_order order(const Extents& x, std::string_view caller) const {
    axis_order p{{}, x.rank()};
    for (std::size_t r = 0; r < x.rank(); ++r) p.order[r] = r;
    if (x.rank() == 0 && (first == 0 || first == -1) && (second == 0 || second == -1)) return p;  // as PyTorch
    std::swap(p.order[resolve_axis(first, x.rank(), x, caller)], p.order[resolve_axis(second, x.rank(), x, caller)]);
    return p;
  }
};

template <std::size_t I, std::size_t J, class Indices>
struct swap_order;
template <std::size_t I, std::size_t J, std::size_t... R>
struct swap_order<I, J, std::index_sequence<R...>> {
  struct type : static_axis_order<(R == I ? J : R == J ? I : R)...> {
    static constexpr const char* what = "fusegrad::transpose";
  };
};
}  // namespace detail

/// The axes of x reordered: result axis r is axis order[r] of x (PyTorch's permute).
///   value: y[i_0, ..., i_n] = x[i at the axes' places]
///   vjp:   dx = dy permuted back
template <class Order>
struct permute_op {
  static constexpr std::string_view name = "permute";
  static constexpr std::string_view backward_name = "PermuteBackward";
  static constexpr vjp_needs needs = vjp_needs::none;
  static constexpr std::size_t arity = 1;

  [[no_unique_address]] Order order{};

  template <ShapeLike S>
  using result_shape = typename Order::template shape<S>;
  [[nodiscard]] Extents result_extents(const Extents& x) const {
    const detail::axis_order p = order.order(x, Order::what);
    std::array<std::size_t, Extents::max_rank> out{};
    for (std::size_t r = 0; r < p.rank; ++r) out[r] = x[p.order[r]];
    return Extents(std::span<const std::size_t>(out.data(), p.rank));
  }

  template <class T>
  void value(T* y, const operands<T, 1>& in) const {
    detail::permute_copy<false>(in.values[0], y, in.extents[0], order.order(in.extents[0], Order::what));
  }
  template <std::size_t I, class T>
  void vjp(T* dx, const T* dy, const operands<T, 1>& in, const T* /*y*/) const {
    detail::permute_copy<true>(dy, dx, in.extents[0], order.order(in.extents[0], Order::what));
  }
};

/// The axes reordered, statically: `fg::permute(x, fg::axes<2, 0, 1>)`; an order that is not
/// each axis of a static shape once is a compile error naming the shape.
template <Differentiable X, std::size_t... P>
[[nodiscard]] constexpr auto permute(X&& x, Axes<P...>) {
  return detail::make_materialized_with(permute_op<detail::static_axis_order<P...>>{}, std::forward<X>(x));
}
/// The same with the order given at run time: `fg::permute(t, {2, 0, 1})` (negative axes count
/// from the end); throws shape_error unless it names each axis once.
template <Differentiable X>
[[nodiscard]] auto permute(X&& x, std::span<const std::int64_t> order) {
  detail::runtime_axis_order o;
  if (order.size() > Extents::max_rank)
    throw shape_error("fusegrad::permute: " + std::to_string(order.size()) + " axes exceed the most axes (" +
                      std::to_string(Extents::max_rank) + ")");
  std::copy(order.begin(), order.end(), o.axes.begin());
  o.rank = order.size();
  return detail::make_materialized_with(permute_op<detail::runtime_axis_order>{o}, std::forward<X>(x));
}
template <Differentiable X>
[[nodiscard]] auto permute(X&& x, std::initializer_list<std::int64_t> order) {
  return permute(std::forward<X>(x), std::span<const std::int64_t>(order.begin(), order.size()));
}

/// Axes i and j swapped, given at run time (PyTorch's transpose(x, i, j)).
template <Differentiable X>
[[nodiscard]] auto transpose(X&& x, std::int64_t i, std::int64_t j) {
  return detail::make_materialized_with(permute_op<detail::runtime_axis_swap>{{i, j}}, std::forward<X>(x));
}
/// Axes I and J swapped: `fg::transpose(x, fg::axes<0, 2>)`. Checked at compile time where x's rank is known; over
/// a tensor (AnyShape), whose rank is known only at run time, it is the run-time swap, transpose(x, I, J).
template <Differentiable X, std::size_t I, std::size_t J>
[[nodiscard]] constexpr auto transpose(X&& x, Axes<I, J>) {
  using node = detail::node_t<detail::closure_t<X&&>>;
  if constexpr (!ShapeType<typename node::static_shape>) {
    return transpose(std::forward<X>(x), std::int64_t(I), std::int64_t(J));
  } else {
    using S = typename node::static_shape;
    // A scalar has one axis, 0, for transpose as for the reductions (PyTorch's t.transpose(0, 0) of a 0-d tensor).
    constexpr bool scalar_axis = S::rank == 0 && I == 0 && J == 0;
    if constexpr ((I >= S::rank || J >= S::rank) && !scalar_axis) {
      // The axes as written, and the shape: one diagnostic, and x unchanged after it so that nothing else fails.
      constexpr std::size_t report =
          sizeof(detail::transpose_axis_out_of_range_for_shape<S, Axes<I, J>, detail::shapes_text<S>>);
      (void)report;
      return std::forward<X>(x);
    } else {
      using order = typename detail::swap_order<I, J, std::make_index_sequence<S::rank>>::type;
      return detail::make_materialized_with(permute_op<order>{}, std::forward<X>(x));
    }
  }
}
/// One axis where transpose swaps two: one error that says what it takes, where no overload would match and the
/// compiler would list every candidate. x is bound as const volatile, so that a program's own transpose that takes it
/// by reference is the better match and keeps its calls.
template <Differentiable X, std::integral I>
auto transpose(const volatile X& operand, I axis) {
  const X& x = const_cast<const X&>(operand);
  static_assert(detail::always_false<X>,
                "fusegrad::transpose(x, i, j): two axes are swapped, fg::transpose(x, 0, 1) or "
                "fg::transpose(x, fg::axes<0, 1>); fg::transpose(x) transposes a matrix");
  return transpose(x, std::int64_t(axis), std::int64_t(axis));  // after the one error, nothing that adds another
}

}  // namespace fusegrad
