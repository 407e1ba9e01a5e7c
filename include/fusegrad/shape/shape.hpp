// shape/shape.hpp -- Shape<Ds...>: extents fixed at compile time, `dyn` where only run time knows.
#pragma once

#include <array>
#include <cstddef>
#include <span>
#include <string>
#include <utility>

namespace fusegrad {

/// The extent of an axis that is known only at run time (like std::dynamic_extent).
inline constexpr std::size_t dyn = std::dynamic_extent;

/// A tensor shape as a type: `Shape<3, 2>` is 3 rows of 2, `Shape<>` a scalar,
/// `Shape<dyn>` a vector whose length is given at run time. Row-major, like NumPy.
/// Example: examples/broadcasting.cpp.
template <std::size_t... Ds>
struct Shape {
  static constexpr std::size_t rank = sizeof...(Ds);
  static constexpr std::array<std::size_t, rank> extents{Ds...};
};

/// Any specialisation of Shape.
template <class S>
concept ShapeType = requires {
  []<std::size_t... Ds>(Shape<Ds...>*){}(static_cast<S*>(nullptr));
};

// rank_v<S>: the number of axes.
template <ShapeType S>
inline constexpr std::size_t rank_v = S::rank;

// is_static_v<S>: true when no extent is dyn.
template <ShapeType S>
inline constexpr bool is_static_v = [] {
  for (std::size_t e : S::extents)
    if (e == dyn) return false;
  return true;
}();

// size_v<S>: the number of elements of a static shape.
template <ShapeType S>
inline constexpr std::size_t size_v = [] {
  static_assert(is_static_v<S>, "fusegrad::size_v<S>: S has a dyn extent, its size is known only at run time");
  std::size_t n = 1;
  for (std::size_t e : S::extents) n *= e;
  return n;
}();

// extent_v<S, I>: the extent of axis I (possibly dyn).
template <ShapeType S, std::size_t I>
inline constexpr std::size_t extent_v = [] {
  static_assert(I < S::rank, "fusegrad::extent_v<S, I>: axis I is past the rank of S");
  return S::extents[I];
}();

/// "(3,2)", "()" or "(?,4)": how errors and pictures print a shape.
template <ShapeType S>
std::string to_string() {
  std::string out = "(";
  for (std::size_t i = 0; i < S::rank; ++i) {
    if (i) out += ',';
    out += S::extents[i] == dyn ? std::string("?") : std::to_string(S::extents[i]);
  }
  return out + ')';
}

namespace detail {
// shape_from_array<Array>: turns a constexpr std::array of extents back into a Shape type.
template <auto Extents, class = std::make_index_sequence<Extents.size()>>
struct shape_from_array_impl;
template <auto Extents, std::size_t... I>
struct shape_from_array_impl<Extents, std::index_sequence<I...>> {
  using type = Shape<Extents[I]...>;
};
template <auto Extents>
using shape_from_array = typename shape_from_array_impl<Extents>::type;
}  // namespace detail

}  // namespace fusegrad
