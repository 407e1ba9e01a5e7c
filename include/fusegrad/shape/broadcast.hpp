// shape/broadcast.hpp -- broadcast_t<A, B>: NumPy broadcasting of two compile-time shapes.
#pragma once

#include <algorithm>
#include <array>
#include <type_traits>

#include <fusegrad/shape/shape.hpp>

namespace fusegrad {

namespace detail {

// Shapes are aligned from the last axis. Per axis: equal extents stay, 1 yields to the
// other extent, dyn yields to a static extent other than 1 (checked again at run time),
// anything else is a mismatch.
inline constexpr std::size_t no_axis = std::size_t(-1);

template <class A, class B>
struct broadcast_rule {
  static constexpr std::size_t rank = std::max(A::rank, B::rank);

  static constexpr std::size_t extent_at(const auto& ext, std::size_t own_rank, std::size_t axis) {
    const std::size_t pad = rank - own_rank;
    return axis < pad ? 1 : ext[axis - pad];
  }

  // The first axis (counted in the result) whose extents clash, or no_axis.
  static constexpr std::size_t bad_axis = [] {
    for (std::size_t i = 0; i < rank; ++i) {
      const std::size_t a = extent_at(A::extents, A::rank, i), b = extent_at(B::extents, B::rank, i);
      if (a != b && a != 1 && b != 1 && a != dyn && b != dyn) return i;
    }
    return no_axis;
  }();

  static constexpr std::array<std::size_t, rank> extents = [] {
    std::array<std::size_t, rank> out{};
    for (std::size_t i = 0; i < rank; ++i) {
      const std::size_t a = extent_at(A::extents, A::rank, i), b = extent_at(B::extents, B::rank, i);
      if (a == 1)
        out[i] = b;
      else if (b == 1)
        out[i] = a;
      else if (a == dyn)
        out[i] = b;
      else
        out[i] = a;  // a == b, or b == dyn with a static
    }
    return out;
  }();
};

// Left undefined: a failed broadcast instantiates it, so the compiler prints both shapes,
// as types and as text (which shows dyn extents as "dyn").
template <class A, class B, fixed_text Shapes>
struct shapes_cannot_be_broadcast;
template <class A, class B>
struct broadcast_failure : shapes_cannot_be_broadcast<A, B, shapes_text<A, B>> {};

template <class A, class B>
struct broadcast_impl {
  using rule = broadcast_rule<A, B>;
  struct ok {
    using type = shape_from_array<rule::extents>;
  };
  static constexpr bool broadcastable = rule::bad_axis == no_axis;
  static_assert(broadcastable,
                "fusegrad: shapes do not broadcast (the two shapes are named in "
                "'shapes_cannot_be_broadcast<A, B, \"A and B\">' below; extents must match, or one of them must be 1)");
  using type = typename std::conditional_t<broadcastable, ok, broadcast_failure<A, B>>::type;
};

}  // namespace detail

// broadcast_t<A, B>: the shape of an element-wise result of operands shaped A and B.
template <ShapeType A, ShapeType B>
using broadcast_t = typename detail::broadcast_impl<A, B>::type;

// broadcastable_v<A, B>: whether broadcast_t<A, B> is well formed (no diagnostic).
template <ShapeType A, ShapeType B>
inline constexpr bool broadcastable_v = detail::broadcast_rule<A, B>::bad_axis == detail::no_axis;

}  // namespace fusegrad
