// ops/reshape.hpp -- reshape, flatten, squeeze and unsqueeze: new extents over the same row-major values.
#pragma once

#include <algorithm>
#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include <fusegrad/detail/always_false.hpp>
#include <fusegrad/detail/make_node.hpp>
#include <fusegrad/error.hpp>
#include <fusegrad/ops/reduction_axes.hpp>
#include <fusegrad/shape/reshape_rules.hpp>
#include <fusegrad/shape/resolve_axis.hpp>

namespace fusegrad {

/// A reshape: the same values in the same row-major order under other extents, which
/// `Rule` computes from the operand's (statically where it can; shape/reshape_rules.hpp). So value and VJP are
/// copies, and a Tensor reshaped this way shares its values (tape/fused.hpp: is_view).
///   value: y = x, flat
///   vjp:   dx = dy, flat
template <class Rule>
struct reshape_op {
  static constexpr std::string_view name = Rule::name;
  static constexpr std::string_view backward_name = Rule::backward_name;
  static constexpr std::string_view header = "reshape";  // flatten, squeeze and unsqueeze are reshapes too
  static constexpr vjp_needs needs = vjp_needs::none;
  static constexpr std::size_t arity = 1;
  static constexpr bool is_view = true;  // the values, in order: a tensor's storage serves both

  [[no_unique_address]] Rule rule{};

  template <ShapeLike S>
  using result_shape = typename Rule::template shape<S>;
  [[nodiscard]] Extents result_extents(const Extents& x) const { return rule.extents(x); }

  template <class T>
  static void value(T* y, const operands<T, 1>& in) {
    std::copy_n(in.values[0], in.extents[0].size(), y);
  }
  template <std::size_t I, class T>
  static void vjp(T* dx, const T* dy, const operands<T, 1>& in, const T* /*y*/) {
    std::copy_n(dy, in.extents[0].size(), dx);
  }
};

namespace detail {
// Whether a static extent is a count: an integer or enumerator >= 0, or anything else that converts to size_t.
template <auto D>
constexpr bool is_count() {
  using type = decltype(D);
  if constexpr (std::is_enum_v<type>)
    return std::cmp_greater_equal(static_cast<std::underlying_type_t<type>>(D), 0);
  else if constexpr (std::is_integral_v<type> && !std::is_same_v<type, bool>)
    return std::cmp_greater_equal(D, 0);
  else
    return std::is_convertible_v<type, std::size_t>;
}

template <class Rule, class X>
constexpr auto make_reshape(X&& x, Rule rule = {}) {
  return make_materialized_with(reshape_op<Rule>{rule}, std::forward<X>(x));
}
}  // namespace detail

/// The same values under a static shape of the same size: `fg::reshape<2, 3>(x)`. A static
/// operand of another size is a compile error naming both shapes; a dyn one throws.
template <auto... Ds, Differentiable X>
[[nodiscard]] constexpr auto reshape(X&& x) {
  // Taken as any constants, so that -1 meets this assertion rather than a failed conversion to size_t.
  constexpr bool counts = (detail::is_count<Ds>() && ...);
  static_assert(counts,
                "fusegrad::reshape<extents...>(x): static extents are counts (>= 0); to infer one, use the run-time "
                "form fg::reshape(x, {3, -1})");
  if constexpr (counts)
    return detail::make_reshape<detail::reshape_to_shape<static_cast<std::size_t>(Ds)...>>(std::forward<X>(x));
  else
    return std::forward<X>(x);
}

/// The same values under extents given at run time, one of them -1 to infer it:
/// `fg::reshape(t, {2, -1})` (PyTorch's reshape; throws shape_error for another size).
template <Differentiable X>
[[nodiscard]] auto reshape(X&& x, std::initializer_list<std::int64_t> extents) {
  detail::reshape_to_extents rule;
  if (extents.size() > Extents::max_rank)
    throw shape_error("fusegrad::reshape: " + std::to_string(extents.size()) + " extents exceed the most axes (" +
                      std::to_string(Extents::max_rank) + ")");
  std::copy(extents.begin(), extents.end(), rule.target.begin());
  rule.rank = extents.size();
  return detail::make_reshape(std::forward<X>(x), rule);
}
/// The same, to the extents of another tensor's shape.
template <Differentiable X>
[[nodiscard]] auto reshape(X&& x, const Extents& extents) {
  detail::reshape_to_extents rule;
  std::transform(extents.begin(), extents.end(), rule.target.begin(),
                 [](std::size_t e) { return static_cast<std::int64_t>(e); });
  rule.rank = extents.rank();
  return detail::make_reshape(std::forward<X>(x), rule);
}

/// Run-time extents without their braces (PyTorch's x.reshape(3, 2)): one error that says how they are given, where no
/// overload would match and the compiler would list every candidate. x is bound as const volatile, so that a program's
/// own reshape that takes it by reference is the better match and keeps its calls.
template <Differentiable X, std::integral... Is>
  requires(sizeof...(Is) >= 1)
auto reshape(const volatile X& operand, Is... extents) {
  const X& x = const_cast<const X&>(operand);
  static_assert(detail::always_false<X>,
                "fusegrad::reshape(x, {extents...}): run-time extents go in braces, fg::reshape(x, {3, 2}) (one may "
                "be -1), or statically fg::reshape<3, 2>(x)");
  return reshape(x, {std::int64_t(extents)...});  // after the one error, a reshape, so that nothing adds another
}

/// Every axis into one (rank 1, static when the operand's extents are).
template <Differentiable X>
[[nodiscard]] constexpr auto flatten(X&& x) {
  return detail::make_reshape<detail::flatten_all>(std::forward<X>(x));
}
/// Axes `start` to `end` (inclusive; negative counts from the end) into one, as PyTorch's flatten.
template <Differentiable X>
[[nodiscard]] auto flatten(X&& x, std::int64_t start, std::int64_t end = -1) {
  return detail::make_reshape(std::forward<X>(x), detail::flatten_axes{start, end});
}

/// Axes given as template arguments, flatten<0, 1>(x): one error that says they are run-time arguments.
template <auto... Axis, Differentiable X>
  requires(sizeof...(Axis) >= 1)
auto flatten(X&& x) {
  static_assert(detail::always_false<X>,
                "fusegrad::flatten(x, start, end): the axes are run-time arguments, fg::flatten(x, 0, 1) (PyTorch's "
                "flatten); fg::flatten(x) joins every axis");
  return flatten(std::forward<X>(x));  // after the one error, a flatten, so that nothing adds another
}

/// Every axis of extent 1 removed.
template <Differentiable X>
[[nodiscard]] constexpr auto squeeze(X&& x) {
  return detail::make_reshape<detail::squeeze_all>(std::forward<X>(x));
}
/// Axis `fg::axes<A>` removed if its extent is 1 (kept otherwise, as in PyTorch).
template <Differentiable X, std::size_t A>
[[nodiscard]] constexpr auto squeeze(X&& x, Axes<A>) {
  return detail::make_reshape<detail::squeeze_static_axis<A>>(std::forward<X>(x));
}
/// The same with the axis given at run time (negative counts from the end).
template <Differentiable X>
[[nodiscard]] auto squeeze(X&& x, std::int64_t axis) {
  return detail::make_reshape(std::forward<X>(x), detail::squeeze_axis{axis});
}

/// An axis of extent 1 inserted at position A of the result: `fg::unsqueeze(x, fg::axes<0>)`.
template <Differentiable X, std::size_t A>
[[nodiscard]] constexpr auto unsqueeze(X&& x, Axes<A>) {
  return detail::make_reshape<detail::unsqueeze_static_axis<A>>(std::forward<X>(x));
}
/// The same with the axis given at run time: -1 appends an axis, as in PyTorch.
template <Differentiable X>
[[nodiscard]] auto unsqueeze(X&& x, std::int64_t axis) {
  return detail::make_reshape(std::forward<X>(x), detail::unsqueeze_axis{axis});
}

}  // namespace fusegrad
