// shape/broadcast.hpp -- broadcast_t<A, B>: NumPy broadcasting of two compile-time shapes.
#pragma once

#include <algorithm>
#include <array>
#include <type_traits>

#include <fusegrad/shape/broadcast_rule.hpp>
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

}  // namespace fusegrad
