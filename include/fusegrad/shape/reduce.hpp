// shape/reduce.hpp -- reduce_t<S, Axes, KeepDims>: the shape left after summing over some axes.
#pragma once

#include <algorithm>
#include <array>
#include <span>
#include <type_traits>

#include <fusegrad/shape/shape.hpp>

namespace fusegrad {

/// A compile-time list of axes to reduce over, e.g. `Axes<0, 2>`.
template <std::size_t... As>
struct Axes {
  static constexpr std::array<std::size_t, sizeof...(As)> values{As...};
};

/// Reduce over every axis.
struct AllAxes {};

/// Whether a reduction keeps the reduced axes with extent 1 (NumPy's keepdims).
enum class keep_dims : bool { no = false, yes = true };

template <class A>
concept AxesType = std::same_as<A, AllAxes> || requires {
  []<std::size_t... As>(Axes<As...>*){}(static_cast<A*>(nullptr));
};

namespace detail {

// An operation's axes argument, checked: A itself when it is axes, else (after the one error that says how axes are
// given) every axis, so that nothing adds a second error. A number (PyTorch's dim=1) would otherwise match no
// overload, and the compiler would list every candidate.
template <class A>
struct checked_axes {
  static_assert(AxesType<A>,
                "fusegrad: axes are given at compile time, as fg::axes<1> or fg::axes<0, 2> (fg::all_axes for every "
                "axis), then fg::keepdims if wanted; not as a number (PyTorch's dim=1). The larger or smaller of two "
                "expressions is fg::maximum or fg::minimum");
  using type = std::conditional_t<AxesType<A>, A, AllAxes>;
};
template <class A>
using checked_axes_t = typename checked_axes<A>::type;

// The reduction rule, written once for static shapes and run-time extents alike.
// Marks in `mask` the axes A reduces of a shape of rank `rank` (all of them for AllAxes);
// returns the first axis of A past that rank, or no_axis. A scalar has axis 0, of extent 1, as in PyTorch
// (`torch.tensor(3.).sum(0)` is 3): reducing over it leaves the scalar, and marks nothing.
template <class A>
constexpr std::size_t mark_reduced_axes(std::size_t rank, std::span<bool> mask) noexcept {
  if constexpr (std::is_same_v<A, AllAxes>) {
    std::fill_n(mask.begin(), rank, true);
  } else {
    for (std::size_t a : A::values) {
      if (rank == 0 && a == 0) continue;
      if (a >= rank) return a;
      mask[a] = true;
    }
  }
  return no_axis;
}

// Writes the extents left after reducing the axes marked in `mask` (kept as 1 with
// keep_dims::yes) into `out`; returns how many there are.
constexpr std::size_t reduce_into(std::span<const std::size_t> extents, std::span<const bool> mask, keep_dims keep,
                                  std::span<std::size_t> out) noexcept {
  std::size_t j = 0;
  for (std::size_t i = 0; i < extents.size(); ++i) {
    if (!mask[i])
      out[j++] = extents[i];
    else if (keep == keep_dims::yes)
      out[j++] = 1;
  }
  return j;
}

// Whether A names each axis at most once (AllAxes does).
template <class A>
inline constexpr bool axes_named_once_v = true;
template <std::size_t... As>
inline constexpr bool axes_named_once_v<Axes<As...>> = [] {
  constexpr std::array<std::size_t, sizeof...(As)> values{As...};
  for (std::size_t i = 0; i < values.size(); ++i)
    for (std::size_t j = i + 1; j < values.size(); ++j)
      if (values[i] == values[j]) return false;
  return true;
}();

template <class S, class A>
struct reduced_axes {
  static constexpr std::size_t first_out_of_range = [] {
    std::array<bool, S::rank> m{};
    return mark_reduced_axes<A>(S::rank, m);
  }();
  static constexpr bool in_range = first_out_of_range == no_axis;
  // A mask over S's axes: true where the reduction sums.
  static constexpr std::array<bool, S::rank> mask = [] {
    std::array<bool, S::rank> m{};
    if (in_range) mark_reduced_axes<A>(S::rank, m);
    return m;
  }();

  static constexpr bool distinct = axes_named_once_v<A>;
};

// Never defined: the diagnostics of a reduction's axes (shape.hpp: how a shape rule reports).
template <class S, class A, fixed_text Shape>
struct reduction_axis_out_of_range_for_shape;
template <class S, class A, fixed_text Shape>
struct reduction_names_the_same_axis_twice;

template <class S, class A, keep_dims K, bool = reduced_axes<S, A>::in_range&& reduced_axes<S, A>::distinct>
struct reduce_impl {
  using axes = reduced_axes<S, A>;
  static constexpr std::size_t kept = [] {
    std::array<std::size_t, S::rank> out{};
    return reduce_into(S::extents, axes::mask, K, out);
  }();
  static constexpr std::array<std::size_t, kept> extents = [] {
    std::array<std::size_t, S::rank> all{};
    reduce_into(S::extents, axes::mask, K, all);
    std::array<std::size_t, kept> out{};
    std::copy_n(all.begin(), kept, out.begin());
    return out;
  }();
  using type = shape_from_array<extents>;
};
template <class S, class A, keep_dims K>
struct reduce_impl<S, A, K, false> {
  using failure =
      std::conditional_t<reduced_axes<S, A>::in_range, reduction_names_the_same_axis_twice<S, A, shapes_text<S>>,
                         reduction_axis_out_of_range_for_shape<S, A, shapes_text<S>>>;
  enum : std::size_t { report = sizeof(failure) };  // axes count from 0 and are below the shape's rank
  using type = Shape<>;                             // after the one error, a shape, so that nothing else fails
};

}  // namespace detail

// reduce_t<S, A, K>: the shape of summing S over the axes A (Axes<...> or AllAxes).
template <ShapeType S, AxesType A = AllAxes, keep_dims K = keep_dims::no>
using reduce_t = typename detail::reduce_impl<S, A, K>::type;

}  // namespace fusegrad
