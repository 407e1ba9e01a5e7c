// ops/cumsum.hpp -- running sums along one axis, and their vector-Jacobian product.
#pragma once

#include <cstddef>
#include <string_view>
#include <utility>

#include <fusegrad/detail/carried_sum.hpp>
#include <fusegrad/detail/make_node.hpp>
#include <fusegrad/ops/reduction_axes.hpp>
#include <fusegrad/shape/resolve_axis.hpp>

namespace fusegrad {

/// Running sums along axis `Axis` (PyTorch's cumsum(x, dim)); the shape is x's:
///   value: y[.., k, ..] = sum_{j <= k} x[.., j, ..]
///   vjp:   dx[.., k, ..] = sum_{j >= k} dy[.., j, ..], the running sum from the other end
template <std::size_t Axis>
struct cumsum_op {
  static constexpr std::string_view name = "cumsum";
  static constexpr std::string_view backward_name = "CumsumBackward";
  static constexpr vjp_needs needs = vjp_needs::none;
  static constexpr std::size_t arity = 1;

  // The shape of x; reduced_shape_t checks the axis against a static rank (a compile error).
  template <ShapeLike S>
  using result_shape = std::conditional_t<true, S, reduced_shape_t<S, Axes<Axis>, keep_dims::yes>>;
  static Extents result_extents(const Extents& x) {
    (void)detail::reduction_mask<Axes<Axis>>(x, "fusegrad::cumsum");  // throws for an axis past the rank
    return x;
  }

  template <class T>
  static void value(T* y, const operands<T, 1>& in) {
    along_axis(in.extents[0], [&](std::size_t first, std::size_t stride, std::size_t n) {
      detail::carried_sum_t<T> total(0);  // double for float, as PyTorch's
      for (std::size_t k = 0; k < n; ++k) y[first + k * stride] = T(total += in.values[0][first + k * stride]);
    });
  }
  template <std::size_t I, class T>
  static void vjp(T* dx, const T* dy, const operands<T, 1>& in, const T* /*y*/) {
    along_axis(in.extents[0], [&](std::size_t first, std::size_t stride, std::size_t n) {
      detail::carried_sum_t<T> total(0);
      for (std::size_t k = n; k-- > 0;) dx[first + k * stride] = T(total += dy[first + k * stride]);
    });
  }

 private:
  // Calls line(first, stride, n) for every line of x along the axis: its first element, the
  // distance between its elements and their count. A scalar is one line of one element.
  template <class Line>
  static void along_axis(const Extents& x, Line&& line) {
    std::size_t outer = 1, inner = 1;
    for (std::size_t r = 0; r < Axis; ++r) outer *= x[r];
    for (std::size_t r = Axis + 1; r < x.rank(); ++r) inner *= x[r];
    const std::size_t n = detail::extent_along(x, Axis);
    for (std::size_t o = 0; o < outer; ++o)
      for (std::size_t i = 0; i < inner; ++i) line(o * n * inner + i, inner, n);
  }
};

/// Running sums along one axis: `fg::cumsum(x, fg::axes<1>)`.
template <Differentiable X, std::size_t Axis>
[[nodiscard]] constexpr auto cumsum(X&& x, Axes<Axis>) {
  return detail::make_materialized<cumsum_op<Axis>>(std::forward<X>(x));
}

}  // namespace fusegrad
