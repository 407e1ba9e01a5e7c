// ops/reduction_axes.hpp -- the run-time side of reduce_t: which axes a reduction sums, checked.
#pragma once

#include <array>
#include <string>

#include <fusegrad/error.hpp>
#include <fusegrad/shape/extents.hpp>
#include <fusegrad/shape/reduce.hpp>
#include <fusegrad/shape/reduce_broadcast.hpp>

namespace fusegrad::detail {

// The mask of reduced axes for extents `e`; throws shape_error for an axis past e's rank
// (possible only for AnyShape operands, static shapes are checked by reduce_t).
template <AxesType A>
std::array<bool, Extents::max_rank> reduction_mask(const Extents& e, const char* what) {
  std::array<bool, Extents::max_rank> mask{};
  if (const std::size_t axis = mark_reduced_axes<A>(e.rank(), mask); axis != no_axis)
    throw shape_error(std::string(what) + ": axis " + std::to_string(axis) + " is out of range for shape " +
                      e.to_string());
  return mask;
}

// The result extents with every reduced axis kept as 1: the layout reduce_broadcast sums to.
template <AxesType A>
Extents kept_extents(const Extents& e, const char* what) {
  const auto mask = reduction_mask<A>(e, what);
  return reduce_extents(e, std::span<const bool>(mask.data(), e.rank()), keep_dims::yes);
}

template <AxesType A, keep_dims K>
Extents reduced_extents(const Extents& e, const char* what) {
  const auto mask = reduction_mask<A>(e, what);
  return reduce_extents(e, std::span<const bool>(mask.data(), e.rank()), K);
}

// Calls f(i, g) for every element i of an array shaped `x`, in row-major order, with g the
// element of the reduction's result (shaped `kept`: x with its reduced axes as 1) that i
// reduces into. What a reduction that is not a sum (max, logsumexp, variance) walks.
template <class F>
void for_each_reduced_element(const Extents& x, const Extents& kept, F&& f) {
  const axis_runs layout(kept, x, "fusegrad: a reduction");
  for_each_broadcast_chunk(layout, [&](std::size_t big, std::size_t small, std::size_t n, bool reduced) {
    for (std::size_t k = 0; k < n; ++k) f(big + k, reduced ? small : small + k);
  });
}

// How many elements of x each result element of the reduction reduces.
inline std::size_t group_size(const Extents& x, const Extents& kept) noexcept {
  return kept.size() == 0 ? 0 : x.size() / kept.size();
}

}  // namespace fusegrad::detail

namespace fusegrad {
/// Axes to reduce over, as a value: `fg::sum(x, fg::axes<0, 2>)`.
template <std::size_t... As>
inline constexpr Axes<As...> axes{};
/// Every axis, as a value: `fg::sum(x, fg::all_axes, fg::keepdims)`.
inline constexpr AllAxes all_axes{};
/// Keep reduced axes with extent 1: `fg::sum(x, fg::axes<1>, fg::keepdims)`.
inline constexpr std::integral_constant<keep_dims, keep_dims::yes> keepdims{};
}  // namespace fusegrad
