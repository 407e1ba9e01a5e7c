// ops/cat.hpp -- cat: tensors joined along one axis, and each one's gradient cut back out.
#pragma once

#include <algorithm>
#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include <fusegrad/detail/always_false.hpp>
#include <fusegrad/detail/make_node.hpp>
#include <fusegrad/error.hpp>
#include <fusegrad/expr/leaf.hpp>
#include <fusegrad/ops/reduction_axes.hpp>  // fg::axes
#include <fusegrad/shape/resolve_axis.hpp>
#include <fusegrad/shape/shape.hpp>

namespace fusegrad {

namespace detail {
// The extents of the operands joined along `axis`: they agree on every other axis (PyTorch's
// cat). Throws shape_error naming the operand that does not fit.
inline Extents joined_extents(std::span<const Extents> parts, std::int64_t axis, std::string_view what) {
  if (parts.empty()) throw value_error(std::string(what) + ": nothing to join; give at least one tensor");
  const Extents& first = parts[0];
  const std::size_t a = resolve_axis(axis, first.rank(), first, what);
  std::size_t total = 0;
  for (std::size_t k = 0; k < parts.size(); ++k) {
    bool fits = parts[k].rank() == first.rank();
    for (std::size_t r = 0; fits && r < first.rank(); ++r) fits = r == a || parts[k][r] == first[r];
    if (!fits)
      throw shape_error(std::string(what) + ": tensor " + std::to_string(k) + " has shape " + parts[k].to_string() +
                        ", tensor 0 " + first.to_string() + "; they must agree on every axis but " + std::to_string(a));
    total += parts[k][a];
  }
  return with_extent(first, a, total);
}

// Never defined: the diagnostic of the static rule (shape.hpp: how a shape rule reports).
template <std::size_t Axis, fixed_text Shapes>
struct cat_operands_do_not_fit_along_axis;

template <bool Fits, std::size_t Axis, class Joined, class... S>
struct joined_or_report {
  using type = Joined;
};
template <std::size_t Axis, class Joined, class... S>
struct joined_or_report<false, Axis, Joined, S...> {
  enum : std::size_t { report = sizeof(cat_operands_do_not_fit_along_axis<Axis, shapes_text<S...>>) };
  using type = AnyShape;
};

// The static shape of operands of shapes S... joined along Axis: AnyShape unless every rank is
// static; then each axis but Axis takes the extent the operands agree on (dyn where none is
// known), and Axis their sum (dyn unless each is known). Operands of other ranks, an axis past
// the rank, or two known extents that differ off the axis are a compile error naming the shapes.
template <std::size_t Axis, class... S>
struct joined_shape {
  using type = AnyShape;
};
template <std::size_t Axis, ShapeType First, ShapeType... Rest>
struct joined_shape<Axis, First, Rest...> {
  static constexpr std::size_t rank = First::rank;
  static constexpr bool fits = [] {
    if (Axis >= rank || ((Rest::rank != rank) || ...)) return false;
    for (std::size_t r = 0; r < rank; ++r) {
      if (r == Axis) continue;
      std::size_t known = First::extents[r];
      bool agree = true;
      const auto meet = [&](std::size_t e) {
        if (e == dyn) return;
        agree = agree && (known == dyn || known == e);
        known = e;
      };
      (meet(Rest::extents[r < Rest::rank ? r : 0]), ...);
      if (!agree) return false;
    }
    return true;
  }();
  static constexpr std::array<std::size_t, rank> out = [] {
    std::array<std::size_t, rank> e{};
    if constexpr (fits) {
      for (std::size_t r = 0; r < rank; ++r) {
        if (r == Axis) {
          e[r] = First::extents[r];
          ((e[r] = e[r] == dyn || Rest::extents[r] == dyn ? dyn : e[r] + Rest::extents[r]), ...);
        } else {
          e[r] = First::extents[r];
          ((e[r] = e[r] == dyn ? Rest::extents[r] : e[r]), ...);
        }
      }
    }
    return e;
  }();
  using type = typename joined_or_report<fits, Axis, shape_from_array<out>, First, Rest...>::type;
};

// A cat along a run-time axis knows its shape at run time only.
template <std::size_t Axis, class... S>
struct cat_result_shape {
  using type = typename joined_shape<Axis, S...>::type;
};
template <class... S>
struct cat_result_shape<no_axis, S...> {
  using type = AnyShape;
};

// Row by row along the joined axis: part(k, offset_in_part, offset_in_result, count) for each
// contiguous run of operand k inside the result.
template <class Part>
void for_each_joined_run(std::span<const Extents> parts, std::size_t axis, Part&& part) {
  const axis_split whole(joined_extents(parts, std::int64_t(axis), "fusegrad::cat"), axis);
  std::size_t at = 0;  // where operand k starts along the axis
  for (std::size_t k = 0; k < parts.size(); ++k) {
    const std::size_t run = parts[k][axis] * whole.inner;
    for (std::size_t o = 0; o < whole.outer; ++o) part(k, o * run, (o * whole.extent + at) * whole.inner, run);
    at += parts[k][axis];
  }
}
}  // namespace detail

/// Operands joined along `axis` (PyTorch's cat): they agree on every other axis. N operands in
/// the static layer; the tape joins any number (tape/join.hpp), through the same functions.
///   value: y = [x_0, x_1, ...] along the axis
///   vjp:   dx_k = the part of dy where x_k sits
/// The axis is a run-time parameter (`fg::cat(1, a, b)`: the result's shape is known at run
/// time) or, given as `fg::axes<1>`, a static one (StaticAxis: the static shapes join at compile time).
template <std::size_t N, std::size_t StaticAxis = detail::no_axis>
struct cat_op {
  static constexpr std::string_view name = "cat";
  static constexpr std::string_view backward_name = "CatBackward";
  static constexpr vjp_needs needs = vjp_needs::none;
  static constexpr std::size_t arity = N;

  std::int64_t axis = StaticAxis == detail::no_axis ? 0 : std::int64_t(StaticAxis);

  template <ShapeLike... S>
  using result_shape = typename detail::cat_result_shape<StaticAxis, S...>::type;
  template <class... E>
  [[nodiscard]] Extents result_extents(const E&... e) const {
    const std::array<Extents, N> parts{e...};
    return detail::joined_extents(parts, axis, "fusegrad::cat");
  }

  /// The joined values, for operands given as spans (what the tape calls).
  template <class T>
  static void join(T* y, std::span<const T* const> values, std::span<const Extents> parts, std::int64_t axis) {
    const std::size_t a = detail::resolve_axis(axis, parts[0].rank(), parts[0], "fusegrad::cat");
    detail::for_each_joined_run(parts, a, [&](std::size_t k, std::size_t from, std::size_t to, std::size_t n) {
      std::copy_n(values[k] + from, n, y + to);
    });
  }
  /// Adds to gradient_of(k) the part of dy that operand k filled, for every k in one pass over dy
  /// (gradient_of(k) is null for an operand that takes no gradient).
  template <class T, class GradientOf>
  static void add_parts(const T* dy, std::span<const Extents> parts, std::int64_t axis, GradientOf gradient_of) {
    const std::size_t a = detail::resolve_axis(axis, parts[0].rank(), parts[0], "fusegrad::cat");
    detail::for_each_joined_run(parts, a, [&](std::size_t k, std::size_t in_part, std::size_t in_y, std::size_t n) {
      if (T* dx = gradient_of(k))
        for (std::size_t i = 0; i < n; ++i) dx[in_part + i] += dy[in_y + i];
    });
  }

  template <class T>
  void value(T* y, const operands<T, N>& in) const {
    join(y, std::span<const T* const>(in.values), std::span<const Extents>(in.extents), axis);
  }
  template <std::size_t I, class T>
  void vjp(T* dx, const T* dy, const operands<T, N>& in, const T* /*y*/) const {
    std::fill_n(dx, in.extents[I].size(), T(0));
    add_parts(dy, std::span<const Extents>(in.extents), axis, [dx](std::size_t k) { return k == I ? dx : nullptr; });
  }
};

/// Expressions joined along `axis` (negative counts from the end): `fg::cat(0, a, b)`. For a
/// list of tensors, `fg::cat({a, b, c}, axis)` (tape/join.hpp).
template <Differentiable... Xs>
  requires(sizeof...(Xs) >= 1)
[[nodiscard]] auto cat(std::int64_t axis, Xs&&... xs) {
  return detail::make_materialized_with(cat_op<sizeof...(Xs)>{axis}, std::forward<Xs>(xs)...);
}
/// The same along a static axis, `fg::cat(fg::axes<1>, a, b)`: operands of static shapes give
/// a static shape, (2, 3) and (2, 4) a Shape<2, 7>, and a mismatch is a compile error.
template <std::size_t Axis, Differentiable... Xs>
  requires(sizeof...(Xs) >= 1)
[[nodiscard]] auto cat(Axes<Axis>, Xs&&... xs) {
  return detail::make_materialized_with(cat_op<sizeof...(Xs), Axis>{}, std::forward<Xs>(xs)...);
}

namespace detail {
// An argument of cat where the axis is missing or comes last (PyTorch's cat((a, b)) and cat((a, b), 1)).
template <class A>
concept cat_argument = Differentiable<A> || std::is_integral_v<A> || AxesType<A>;

// The braced list of cat({a, b}, axis) that no overload takes: expressions that are not all Tensors (static
// expressions take the axis first), or Tensors of two scalar types. Its one error names the mistake. Placeholder, the
// scalar type of what cat gives after it: float for a list of floats, double for any other.
template <class Placeholder>
struct braced_cat_operands {
  template <Differentiable... Xs>
    requires((std::is_same_v<typename Xs::value_type, float> && ...) == std::is_same_v<Placeholder, float>)
  braced_cat_operands(const Xs&...) {  // NOLINT: implicit, to take the braced list
    constexpr bool tensors = (is_handle_v<Xs> && ...);
    static_assert(tensors,
                  "fusegrad::cat(axis, x, y...): Vars and expressions are joined with the axis first, "
                  "fg::cat(0, x, y) or fg::cat(fg::axes<0>, x, y); the braced list, cat({a, b}, 0), takes Tensors");
    static_assert(!tensors,
                  "fusegrad::cat({a, b}, axis): the tensors have two scalar types; convert one first, "
                  "fg::cat({a, b.to<double>()}, 0)");
  }
};
}  // namespace detail

/// Operands without the axis first: one error that says where it goes, where no overload would match and the compiler
/// would list every candidate. The first is bound as const volatile, so that a program's own cat that takes it by
/// reference is the better match and keeps its calls (a temporary gets the compiler's list).
template <Differentiable X, detail::cat_argument... Rest>
auto cat(const volatile X& first, const Rest&...) {
  const X& x = const_cast<const X&>(first);
  static_assert(detail::always_false<X>,
                "fusegrad::cat(axis, a, b...): the axis comes first, fg::cat(0, a, b) or fg::cat(fg::axes<0>, a, b); "
                "a list of Tensors is joined by fg::cat({a, b}, 0)");
  return cat(std::int64_t(0), x);  // after the one error, a cat, so that nothing adds another
}
/// A braced list that no cat takes (detail::braced_cat_operands reports it). The axis is converted as in the Tensors'
/// cat, which a braced list of Tensors of one type then matches better. After the error it returns an expression of
/// the list's scalar type, so that the expressions and gradients built from it add no second error. Declared only: no
/// program that calls them compiles.
Const<double, Shape<dyn>> cat(detail::braced_cat_operands<double>, std::int64_t);
Const<float, Shape<dyn>> cat(detail::braced_cat_operands<float>, std::int64_t);

}  // namespace fusegrad
