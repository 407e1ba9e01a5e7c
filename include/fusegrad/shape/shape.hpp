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

/// "(3,2)", "()" or "(?,4)": how errors print a shape.
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
// Text as a template argument: a compile error prints the arguments of the template it
// fails in, so an error template that takes the shapes' text shows "(dyn, 2) and (4)"
// where the shape types show dyn as 18446744073709551615.
template <std::size_t N>
struct fixed_text {
  char chars[N]{};
};

template <ShapeType S, class Put>
constexpr void render_shape(Put&& put) {
  put('(');
  for (std::size_t i = 0; i < S::rank; ++i) {
    if (i) {
      put(',');
      put(' ');
    }
    if (S::extents[i] == dyn) {
      for (char c : {'d', 'y', 'n'}) put(c);
    } else {
      char digits[20]{};
      int n = 0;
      for (std::size_t e = S::extents[i]; e != 0 || n == 0; e /= 10) digits[n++] = char('0' + e % 10);
      while (n) put(digits[--n]);
    }
  }
  put(')');
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

}  // namespace fusegrad
