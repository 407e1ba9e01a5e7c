// shape/broadcast.hpp -- NumPy broadcasting: broadcast_t<A, B> of compile-time shapes, broadcast(a, b) of run-time
// extents, and whether an operand broadcasts to a shape unchanged; all from the rule of broadcast_rule.hpp.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <span>
#include <string>

#include <fusegrad/error.hpp>
#include <fusegrad/shape/broadcast_rule.hpp>
#include <fusegrad/shape/extents.hpp>
#include <fusegrad/shape/shape.hpp>

namespace fusegrad {

namespace detail {

// The rule of broadcast_rule.hpp over two static shapes: the result's extents, and the
// first axis that clashes (no_axis when none does).
template <class A, class B>
struct broadcast_rule {
  static constexpr std::size_t rank = std::max(A::rank, B::rank);
  static constexpr std::size_t bad_axis = [] {
    std::array<std::size_t, rank> out{};
    return broadcast_into(A::extents, B::extents, out);
  }();
  static constexpr std::array<std::size_t, rank> extents = [] {
    std::array<std::size_t, rank> out{};
    broadcast_into(A::extents, B::extents, out);
    return out;
  }();
};

// Never defined: the diagnostic of a failed broadcast, whose name and template arguments are the message
// (tests/fail/broadcast_mismatch.cpp).
template <class A, class B, fixed_text Shapes>
struct shapes_cannot_be_broadcast;

template <class A, class B, bool = broadcast_rule<A, B>::bad_axis == no_axis>
struct broadcast_impl {
  using type = shape_from_array<broadcast_rule<A, B>::extents>;
};
template <class A, class B>
struct broadcast_impl<A, B, false> {
  enum : std::size_t { report = sizeof(shapes_cannot_be_broadcast<A, B, shapes_text<A, B>>) };
  using type = A;  // after the one error, a shape, so that nothing else fails
};

}  // namespace detail

// broadcast_t<A, B>: the shape of an element-wise result of operands shaped A and B.
template <ShapeType A, ShapeType B>
using broadcast_t = typename detail::broadcast_impl<A, B>::type;

// broadcastable_v<A, B>: whether broadcast_t<A, B> is well formed (no diagnostic).
template <ShapeType A, ShapeType B>
inline constexpr bool broadcastable_v = detail::broadcast_rule<A, B>::bad_axis == detail::no_axis;

namespace detail {
constexpr Extents broadcast_unequal(const Extents& a, const Extents& b);
}

/// NumPy broadcasting at run time: aligned from the last axis, extents equal or one of them 1.
/// Throws shape_error naming both shapes and the first axis that clashes.
constexpr Extents broadcast(const Extents& a, const Extents& b) {
  // Equal extents, the common case (a tape of same-shaped tensors), in a function small
  // enough for the compiler to inline; the rest out of the way.
  if (a == b) return a;
  return detail::broadcast_unequal(a, b);
}

constexpr Extents detail::broadcast_unequal(const Extents& a, const Extents& b) {
  // A scalar operand next: most of what a fused sweep's shape checks see.
  if (b.size() == 1 && b.rank() <= a.rank()) return a;
  if (a.size() == 1 && a.rank() <= b.rank()) return b;
  std::array<std::size_t, Extents::max_rank> out{};
  const std::size_t rank = std::max(a.rank(), b.rank());
  if (const std::size_t axis = broadcast_into(a.axes(), b.axes(), out); axis != no_axis)
    throw shape_error("fusegrad: shapes " + a.to_string() + " and " + b.to_string() + " do not broadcast: axis " +
                      std::to_string(axis) + " of the result has extents " +
                      std::to_string(aligned_extent(a.axes(), rank, axis)) + " and " +
                      std::to_string(aligned_extent(b.axes(), rank, axis)) +
                      "; extents must be equal or one of them 1 (axes align from the right)");
  return Extents(std::span<const std::size_t>(out.data(), rank));
}

/// Whether `a` and `b` broadcast together: broadcast(a, b) returns their shape rather than throwing.
constexpr bool broadcastable(const Extents& a, const Extents& b) noexcept {
  std::array<std::size_t, Extents::max_rank> out{};
  return detail::broadcast_into(a.axes(), b.axes(), out) == detail::no_axis;
}

/// Whether `x` broadcasts to `target` with the target's shape unchanged (PyTorch's expand, the operand of an
/// in-place update): aligned from the last axis, each extent of x equals the target's or is 1, and the target has
/// at least as many axes.
constexpr bool broadcasts_to(const Extents& x, const Extents& target) noexcept {
  return detail::broadcasts_unchanged(x.axes(), target.axes());
}

namespace detail {
// The error of an operand shaped `x` that does not broadcast to `target` unchanged (!broadcasts_to(x, target)),
// named by `what`: where broadcast_to, an in-place update or a gradient summed back to an operand refuses it.
inline shape_error not_broadcast_to_error(const std::string& what, const Extents& x, const Extents& target) {
  std::string why;
  if (x.rank() > target.rank()) {
    why = target.to_string() + " has lower rank, and broadcasting adds axes, never removes them";
  } else {
    const std::size_t axis = first_axis_changed(x.axes(), target.axes());
    why = "axis " + std::to_string(axis) + " of " + target.to_string() + " has extent " + std::to_string(target[axis]) +
          ", against " + std::to_string(aligned_extent(x.axes(), target.rank(), axis));
  }
  return shape_error(what + ": shape " + x.to_string() + " does not broadcast to " + target.to_string() + ": " + why +
                     "; aligned from the right, each extent of the first must equal the second's or be 1");
}
}  // namespace detail

}  // namespace fusegrad
