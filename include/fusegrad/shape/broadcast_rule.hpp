// shape/broadcast_rule.hpp -- NumPy broadcasting, written once: for static shapes and run-time extents alike.
#pragma once

#include <algorithm>
#include <cstddef>
#include <span>

#include <fusegrad/shape/shape.hpp>

namespace fusegrad::detail {

inline constexpr std::size_t clashing_extent = std::size_t(-2);  // never an extent, nor dyn

// One axis of a broadcast: equal extents stay, 1 yields to the other extent, dyn (known only
// at run time) yields to a static extent, to be checked again at run time; anything else
// clashes (clashing_extent).
constexpr std::size_t broadcast_extent(std::size_t a, std::size_t b) noexcept {
  if (a == b || b == 1) return a;
  if (a == 1 || a == dyn) return b;
  if (b == dyn) return a;
  return clashing_extent;
}

// The extent of `axis` of a rank-`rank` result for an operand with extents `e`: shapes align
// from the last axis, and the axes an operand lacks count as 1.
constexpr std::size_t aligned_extent(std::span<const std::size_t> e, std::size_t rank, std::size_t axis) noexcept {
  const std::size_t pad = rank - e.size();
  return axis < pad ? 1 : e[axis - pad];
}

// Writes the broadcast of `a` and `b` into out[0, max rank); returns the first axis of the
// result whose extents clash, or no_axis.
constexpr std::size_t broadcast_into(std::span<const std::size_t> a, std::span<const std::size_t> b,
                                     std::span<std::size_t> out) noexcept {
  const std::size_t rank = std::max(a.size(), b.size());
  for (std::size_t i = 0; i < rank; ++i) {
    out[i] = broadcast_extent(aligned_extent(a, rank, i), aligned_extent(b, rank, i));
    if (out[i] == clashing_extent) return i;
  }
  return no_axis;
}

// The first axis of `target` at which an operand with extents `x`, of rank at most the target's, changes the
// target's extent when it is broadcast to it (its extent, aligned from the right, neither equal to the target's nor
// 1), or no_axis where it broadcasts to `target` unchanged: PyTorch's expand, an in-place update's operand, and the
// shapes a gradient is summed back between.
constexpr std::size_t first_axis_changed(std::span<const std::size_t> x, std::span<const std::size_t> target) noexcept {
  for (std::size_t i = 0; i < target.size(); ++i)
    if (broadcast_extent(aligned_extent(x, target.size(), i), target[i]) != target[i]) return i;
  return no_axis;
}

// Whether `x` broadcasts to `target` with the target's extents unchanged: it has at most the target's rank, and no
// axis changes (first_axis_changed).
constexpr bool broadcasts_unchanged(std::span<const std::size_t> x, std::span<const std::size_t> target) noexcept {
  return x.size() <= target.size() && first_axis_changed(x, target) == no_axis;
}

}  // namespace fusegrad::detail
