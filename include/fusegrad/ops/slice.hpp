// ops/slice.hpp -- slice and select: part of a tensor along one axis, and the gradient put back in place.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include <fusegrad/detail/make_node.hpp>
#include <fusegrad/error.hpp>
#include <fusegrad/shape/resolve_axis.hpp>

namespace fusegrad {

namespace detail {
// The elements begin, begin + step, ... (count of them) along `axis`.
struct axis_range {
  std::size_t axis = 0, begin = 0, count = 0, step = 1;
};

// Copies the range between x and y (x's extents with `count` along the axis): y from x, or,
// scattering, x from y (the rest of x untouched). `source` is x, or y when scattering.
template <bool Scatter, class T>
void copy_range(const T* source, T* target, const Extents& x, const axis_range& r) {
  const axis_split s(x, r.axis);
  for (std::size_t o = 0; o < s.outer; ++o)
    for (std::size_t k = 0; k < r.count; ++k) {
      const std::size_t in_x = (o * s.extent + r.begin + k * r.step) * s.inner, in_y = (o * r.count + k) * s.inner;
      if constexpr (Scatter)
        std::copy_n(source + in_y, s.inner, target + in_x);
      else
        std::copy_n(source + in_x, s.inner, target + in_y);
    }
}

// Never defined: the diagnostic of a static slice that does not fit the shape.
template <class S, fixed_text Shape, std::size_t Axis, std::size_t Begin, std::size_t End, std::size_t Step>
struct slice_out_of_range;

// slice<Axis, Begin, End, Step>: static bounds.
template <std::size_t Axis, std::size_t Begin, std::size_t End, std::size_t Step>
struct static_slice {
  static_assert(Step >= 1, "fusegrad::slice: the step must be at least 1");
  // No overflow at a huge step; a step of 0 has reported itself above, and is taken as 1 so that nothing else fails.
  static constexpr std::size_t count = End > Begin ? 1 + (End - Begin - 1) / (Step == 0 ? 1 : Step) : 0;

  template <ShapeLike S>
  struct sliced {
    using type = AnyShape;
  };
  template <ShapeType S>
    requires(Axis >= S::rank || Begin > End || (S::extents[Axis] != dyn && End > S::extents[Axis]))
  struct sliced<S> {
    enum : std::size_t { report = sizeof(slice_out_of_range<S, shapes_text<S>, Axis, Begin, End, Step>) };
    using type = S;
  };
  template <ShapeType S>
    requires(Axis < S::rank && Begin <= End && (S::extents[Axis] == dyn || End <= S::extents[Axis]))
  struct sliced<S> {
    static constexpr std::array<std::size_t, S::rank> out = [] {
      std::array<std::size_t, S::rank> e{};
      std::copy(S::extents.begin(), S::extents.end(), e.begin());
      e[Axis] = count;
      return e;
    }();
    using type = shape_from_array<out>;
  };
  template <ShapeLike S>
  using shape = typename sliced<S>::type;

  static axis_range range(const Extents& x) {
    if (Axis >= x.rank())  // throws, naming the axes the shape has
      (void)resolve_axis(static_cast<std::int64_t>(std::min<std::size_t>(Axis, INT64_MAX)), x.rank(), x,
                         "fusegrad::slice");
    if (Begin > End || End > x[Axis])
      throw shape_error("fusegrad::slice: elements " + std::to_string(Begin) + " to " + std::to_string(End) +
                        " of axis " + std::to_string(Axis) + " are out of range for shape " + x.to_string() +
                        "; give 0 <= begin <= end <= " + std::to_string(x[Axis]));
    return {Axis, Begin, count, Step};
  }
};

// slice(x, axis, begin, end, step): bounds at run time; negative ones count from the end.
struct runtime_slice {
  template <ShapeLike>
  using shape = AnyShape;

  std::int64_t axis = 0, begin = 0, end = 0, step = 1;

  [[nodiscard]] axis_range range(const Extents& x) const {
    const std::size_t a = resolve_axis(axis, x.rank(), x, "fusegrad::slice");
    const auto n = static_cast<std::int64_t>(x[a]);
    const std::int64_t b = begin < 0 ? begin + n : begin, e = end < 0 ? end + n : end;
    if (step < 1) throw value_error("fusegrad::slice: step " + std::to_string(step) + " must be at least 1");
    if (b < 0 || e > n || b > e)
      throw shape_error("fusegrad::slice: elements " + std::to_string(begin) + " to " + std::to_string(end) +
                        " are out of range for axis " + std::to_string(a) + " of extent " + std::to_string(n) +
                        " (shape " + x.to_string() + "); give 0 <= begin <= end <= " + std::to_string(n) +
                        ", negative ones counting from the end");
    const std::int64_t count = e > b ? 1 + (e - b - 1) / step : 0;  // e - b + step - 1 would overflow for a huge step
    return {a, std::size_t(b), std::size_t(count), std::size_t(step)};
  }
};

// select(x, axis, index): one element along the axis, the axis removed.
struct runtime_select {
  template <ShapeLike>
  using shape = AnyShape;

  std::int64_t axis = 0, index = 0;

  [[nodiscard]] axis_range range(const Extents& x) const {
    const std::size_t a = resolve_axis(axis, x.rank(), x, "fusegrad::select");
    return {a, resolve_index(index, x[a], a, "fusegrad::select"), 1, 1};
  }
  static constexpr bool removes_axis = true;
};

template <class Rule>
constexpr bool removes_axis_v = requires {
  requires Rule::removes_axis;
};
}  // namespace detail

/// Part of x along one axis: elements begin, begin + step, ... before end (PyTorch's
/// x[..., begin:end:step, ...]), or one element with the axis removed (select).
///   value: y = x[range]
///   vjp:   dx = 0 with dy put at the range
template <class Rule>
struct slice_op {
  static constexpr bool removes_axis = detail::removes_axis_v<Rule>;
  static constexpr std::string_view name = removes_axis ? "select" : "slice";
  static constexpr std::string_view backward_name = removes_axis ? "SelectBackward" : "SliceBackward";
  static constexpr std::string_view header = "slice";
  static constexpr vjp_needs needs = vjp_needs::none;
  static constexpr std::size_t arity = 1;

  [[no_unique_address]] Rule rule{};

  template <ShapeLike S>
  using result_shape = typename Rule::template shape<S>;
  [[nodiscard]] Extents result_extents(const Extents& x) const {
    const detail::axis_range r = rule.range(x);
    return removes_axis ? detail::erase_axis(x, r.axis) : detail::with_extent(x, r.axis, r.count);
  }

  template <class T>
  void value(T* y, const operands<T, 1>& in) const {
    detail::copy_range<false>(in.values[0], y, in.extents[0], rule.range(in.extents[0]));
  }
  template <std::size_t I, class T>
  void vjp(T* dx, const T* dy, const operands<T, 1>& in, const T* /*y*/) const {
    std::fill_n(dx, in.extents[0].size(), T(0));
    detail::copy_range<true>(dy, dx, in.extents[0], rule.range(in.extents[0]));
  }
};

/// Elements Begin, Begin + Step, ... before End of axis Axis, statically:
/// `fg::slice<1, 0, 4>(x)`; bounds outside a static shape are a compile error naming it.
template <std::size_t Axis, std::size_t Begin, std::size_t End, std::size_t Step = 1, Differentiable X>
[[nodiscard]] constexpr auto slice(X&& x) {
  return detail::make_materialized_with(slice_op<detail::static_slice<Axis, Begin, End, Step>>{}, std::forward<X>(x));
}
/// The same at run time: `fg::slice(t, 1, 0, 4)`, `fg::slice(t, 0, -2, -1)` (negative bounds
/// and axes count from the end). Bounds outside the axis throw shape_error (PyTorch clamps
/// them instead), a step below 1 value_error.
template <Differentiable X>
[[nodiscard]] auto slice(X&& x, std::int64_t axis, std::int64_t begin, std::int64_t end, std::int64_t step = 1) {
  return detail::make_materialized_with(slice_op<detail::runtime_slice>{{axis, begin, end, step}}, std::forward<X>(x));
}
/// Element `index` along `axis`, the axis removed (PyTorch's select; `t[i]` is select(t, 0, i)):
/// negative ones count from the end, an index outside the axis throws shape_error naming it.
template <Differentiable X>
[[nodiscard]] auto select(X&& x, std::int64_t axis, std::int64_t index) {
  return detail::make_materialized_with(slice_op<detail::runtime_select>{{axis, index}}, std::forward<X>(x));
}

}  // namespace fusegrad
