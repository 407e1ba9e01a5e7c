// ops/gather.hpp -- gather: per position, the element an index tensor picks along one axis.
#pragma once

#include <algorithm>
#include <array>
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

/// Per position of `indices` (same rank as x, a scalar counting as rank 1 on either side; no larger than x along the
/// other axes), the element of x that the index picks along `axis` (PyTorch's gather); the result is shaped like the
/// indices. For axis 1 of a matrix:
///   value: y[i][j] = x[i][indices[i][j]]
///   vjp:   dx[i][m] = sum over j with indices[i][j] = m of dy[i][j]: repeats accumulate
struct gather_op {
  static constexpr std::string_view name = "gather";
  static constexpr std::string_view backward_name = "GatherBackward";
  static constexpr vjp_needs needs = vjp_needs::none;
  static constexpr std::size_t arity = 1;
  static constexpr const char* what = "fusegrad::gather";  // errors start with it

  std::int64_t axis = 0;
  Indices indices{};

  template <ShapeLike>
  using result_shape = AnyShape;
  [[nodiscard]] Extents result_extents(const Extents& x) const {
    const std::size_t a = detail::resolve_axis_scalar_too(axis, x, what);
    const Extents& e = indices.extents();
    // A scalar counts as rank 1 (one axis of extent 1), on either side, as in PyTorch.
    if (std::max<std::size_t>(e.rank(), 1) != std::max<std::size_t>(x.rank(), 1))
      throw shape_error("fusegrad::gather: indices of shape " + e.to_string() + " for x of shape " + x.to_string() +
                        "; both need the same rank (a scalar counts as rank 1)");
    for (std::size_t r = 0; r < x.rank(); ++r)
      if (r != a && e[r] > x[r])
        throw shape_error("fusegrad::gather: indices of shape " + e.to_string() + " are larger than x of shape " +
                          x.to_string() + " along axis " + std::to_string(r) + ", which is not the gathered axis " +
                          std::to_string(a));
    for (std::int64_t i : indices.values()) (void)detail::resolve_index(i, detail::extent_along(x, a), a, what);
    return e;
  }

  template <class T>
  void value(T* y, const operands<T, 1>& in) const {
    for_each_pick(in.extents[0], [&](std::size_t from, std::size_t to) { y[to] = in.values[0][from]; });
  }
  template <std::size_t I, class T>
  void vjp(T* dx, const T* dy, const operands<T, 1>& in, const T* /*y*/) const {
    std::fill_n(dx, in.extents[0].size(), T(0));
    for_each_pick(in.extents[0], [&](std::size_t from, std::size_t to) { dx[from] += dy[to]; });
  }

 private:
  // pick(x_offset, y_offset) for every position of the indices, row-major.
  template <class Pick>
  void for_each_pick(const Extents& x, Pick&& pick) const {
    const std::size_t a = detail::resolve_axis_scalar_too(axis, x, what);
    const Extents& e = indices.extents();
    std::array<std::size_t, Extents::max_rank> x_stride{}, index{};
    for (std::size_t r = x.rank(), s = 1; r-- > 0; s *= x[r]) x_stride[r] = s;
    for (std::size_t to = 0; to < e.size(); ++to) {
      std::size_t from = detail::resolve_index(indices[to], detail::extent_along(x, a), a, what) * x_stride[a];
      for (std::size_t r = 0; r < x.rank(); ++r)
        if (r != a) from += index[r] * x_stride[r];
      pick(from, to);
      for (std::size_t r = e.rank(); r-- > 0;) {  // the odometer over the indices' positions
        if (++index[r] < e[r]) break;
        index[r] = 0;
      }
    }
  }
};

/// Per position of `indices`, the element of x it picks along `axis`:
/// `fg::gather(scores, 1, fg::Indices({2, 0}, {2, 1}))` takes each row's chosen class.
/// Indices outside the axis, or a shape that does not fit x, throw shape_error.
template <Differentiable X>
[[nodiscard]] auto gather(X&& x, std::int64_t axis, Indices indices) {
  return detail::make_materialized_with(gather_op{axis, std::move(indices)}, std::forward<X>(x));
}

}  // namespace fusegrad
