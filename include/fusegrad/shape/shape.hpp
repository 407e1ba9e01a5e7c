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

namespace detail {
// "No axis": what the shape rules return when every axis passed their check.
inline constexpr std::size_t no_axis = std::size_t(-1);

// Text as a template argument: a compile error prints the arguments of the template it
// fails in, so an error template that takes the shapes' text shows "(dyn, 2) and (4)"
// where the shape types show dyn as 18446744073709551615.
//
// How a static shape rule reports a mistake in one error whose first line says it all: the
// failing specialisation of its trait evaluates `sizeof` of a class template left undefined,
// named for the mistake and given the shapes as types and as text (shapes_text); the
// compiler's error for sizeof of an incomplete type quotes that name whole. The trait then
// still names a type, so the mistake causes no further errors (see shape/broadcast.hpp).
template <std::size_t N>
struct fixed_text {
  char chars[N]{};
};

// Writes a shape through put(char) the one way fusegrad prints shapes, static or run-time,
// in every error and text: "(3, 2)", "(dyn, 4)" for an extent known only at run time, "()"
// for a scalar. constexpr, so compile-time diagnostics carry the same text (shapes_text).
template <class Put>
constexpr void render_extents(std::span<const std::size_t> extents, Put&& put) {
  put('(');
  for (std::size_t i = 0; i < extents.size(); ++i) {
    if (i) {
      put(',');
      put(' ');
    }
    if (extents[i] == dyn) {
      for (char c : {'d', 'y', 'n'}) put(c);
    } else {
      char digits[20]{};
      int n = 0;
      for (std::size_t e = extents[i]; e != 0 || n == 0; e /= 10) digits[n++] = char('0' + e % 10);
      while (n) put(digits[--n]);
    }
  }
  put(')');
}

template <ShapeType S, class Put>
constexpr void render_shape(Put&& put) {
  render_extents(std::span<const std::size_t>(S::extents.data(), S::rank), put);
}

template <ShapeType... Ss, class Put>
constexpr void render_shapes(Put&& put) {
  bool first = true;
  auto one = [&]<class S>(S*) {
    if (!first)
      for (char c : {' ', 'a', 'n', 'd', ' '}) put(c);
    first = false;
    render_shape<S>(put);
  };
  (one(static_cast<Ss*>(nullptr)), ...);
}

template <ShapeType... Ss>
constexpr std::size_t shapes_text_length() {
  std::size_t n = 0;
  render_shapes<Ss...>([&](char) { ++n; });
  return n;
}

// shapes_text<Ss...>: "(3, 2) and (dyn)" as a fixed_text, for error templates.
template <ShapeType... Ss>
constexpr auto shapes_text = [] {
  fixed_text<shapes_text_length<Ss...>() + 1> text{};
  std::size_t k = 0;
  render_shapes<Ss...>([&](char c) { text.chars[k++] = c; });
  return text;
}();

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

/// The shape as fusegrad prints every shape: "(3, 2)", "(dyn, 4)", "()".
template <ShapeType S>
std::string to_string() {
  std::string out;
  detail::render_shape<S>([&](char c) { out += c; });
  return out;
}

}  // namespace fusegrad
