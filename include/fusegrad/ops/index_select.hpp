// ops/index_select.hpp -- index_select: chosen elements along one axis, gradients added back where they came from.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include <fusegrad/detail/make_node.hpp>
#include <fusegrad/error.hpp>
#include <fusegrad/ops/indices.hpp>
#include <fusegrad/shape/resolve_axis.hpp>

namespace fusegrad {

/// The elements at `indices` along `axis`, in their order, repeats allowed (PyTorch's
/// index_select; the indices are a vector, or one index alone, which picks as a vector of one).
///   value: y[.., k, ..] = x[.., indices[k], ..]
///   vjp:   dx[.., j, ..] = sum over k with indices[k] = j of dy[.., k, ..]: repeats accumulate
struct index_select_op {
  static constexpr std::string_view name = "index_select";
  static constexpr std::string_view backward_name = "IndexSelectBackward";
  static constexpr vjp_needs needs = vjp_needs::none;
  static constexpr std::size_t arity = 1;
  static constexpr const char* what = "fusegrad::index_select";  // errors start with it

  std::int64_t axis = 0;
  Indices indices{};

  template <ShapeLike>
  using result_shape = AnyShape;
  [[nodiscard]] Extents result_extents(const Extents& x) const {
    if (indices.extents().rank() > 1)  // one index alone (shape ()) picks one, as PyTorch's does
      throw shape_error("fusegrad::index_select: the indices must be a vector or one index, got shape " +
                        indices.extents().to_string());
    const std::size_t a = detail::resolve_axis(axis, x.rank(), x, what);
    for (std::int64_t i : indices.values()) (void)detail::resolve_index(i, x[a], a, what);
    return detail::with_extent(x, a, indices.size());
  }

  template <class T>
  void value(T* y, const operands<T, 1>& in) const {
    for_each_row(in.extents[0],
                 [&](std::size_t from, std::size_t to, std::size_t n) { std::copy_n(in.values[0] + from, n, y + to); });
  }
  template <std::size_t I, class T>
  void vjp(T* dx, const T* dy, const operands<T, 1>& in, const T* /*y*/) const {
    std::fill_n(dx, in.extents[0].size(), T(0));
    for_each_row(in.extents[0], [&](std::size_t from, std::size_t to, std::size_t n) {
      for (std::size_t i = 0; i < n; ++i) dx[from + i] += dy[to + i];
    });
  }

 private:
  // row(x_offset, y_offset, n) for each selected run of n contiguous elements.
  template <class Row>
  void for_each_row(const Extents& x, Row&& row) const {
    const std::size_t a = detail::resolve_axis(axis, x.rank(), x, what);
    const detail::axis_split s(x, a);
    for (std::size_t o = 0; o < s.outer; ++o)
      for (std::size_t k = 0; k < indices.size(); ++k) {
        const std::size_t j = detail::resolve_index(indices[k], s.extent, a, what);
        row((o * s.extent + j) * s.inner, (o * indices.size() + k) * s.inner, s.inner);
      }
  }
};

/// The elements at `indices` along `axis` (negative axis and indices count from the end):
/// `fg::index_select(t, 0, {2, 0, 2})`. An index outside the axis throws shape_error naming it.
template <Differentiable X>
[[nodiscard]] auto index_select(X&& x, std::int64_t axis, Indices indices) {
  return detail::make_materialized_with(index_select_op{axis, std::move(indices)}, std::forward<X>(x));
}

}  // namespace fusegrad
