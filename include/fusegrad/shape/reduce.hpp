// shape/reduce.hpp -- reduce_t<S, Axes, KeepDims>: the shape left after summing over some axes.
#pragma once

#include <array>
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

template <class S, class A>
struct reduced_axes {
  // A mask over S's axes: true where the reduction sums.
  static constexpr std::array<bool, S::rank> mask = [] {
    std::array<bool, S::rank> m{};
    if constexpr (std::is_same_v<A, AllAxes>) {
      m.fill(true);
    } else {
      for (std::size_t a : A::values)
        if (a < S::rank) m[a] = true;
    }
    return m;
  }();

  static constexpr bool in_range = [] {
    if constexpr (std::is_same_v<A, AllAxes>) {
      return true;
    } else {
      for (std::size_t a : A::values)
        if (a >= S::rank) return false;
      return true;
    }
  }();

  static constexpr bool distinct = [] {
    if constexpr (std::is_same_v<A, AllAxes>) {
      return true;
    } else {
      for (std::size_t i = 0; i < A::values.size(); ++i)
        for (std::size_t j = i + 1; j < A::values.size(); ++j)
          if (A::values[i] == A::values[j]) return false;
      return true;
    }
  }();
};

// Left undefined: an out-of-range axis instantiates it, so the compiler prints shape and
// axes, and the shape as text (which shows dyn extents as "dyn").
template <class S, class A, fixed_text Shape>
struct reduction_axes_out_of_range;
template <class S, class A>
struct reduction_axes_failure : reduction_axes_out_of_range<S, A, shapes_text<S>> {};

template <class S, class A, keep_dims K>
struct reduce_impl {
  using axes = reduced_axes<S, A>;
  static_assert(axes::in_range,
                "fusegrad: reduction axis out of range (shape and axes are named in "
                "'reduction_axes_out_of_range<S, Axes, \"S\">' below)");
  static_assert(axes::distinct, "fusegrad: a reduction names the same axis twice");

  static constexpr std::size_t kept = [] {
    std::size_t n = 0;
    for (bool m : axes::mask) n += (K == keep_dims::yes || !m);
    return n;
  }();
  static constexpr std::array<std::size_t, kept> extents = [] {
    std::array<std::size_t, kept> out{};
    std::size_t j = 0;
    for (std::size_t i = 0; i < S::rank; ++i) {
      if (!axes::mask[i])
        out[j++] = S::extents[i];
      else if (K == keep_dims::yes)
        out[j++] = 1;
    }
    return out;
  }();
  struct ok {
    using type = shape_from_array<extents>;
  };
  using type = typename std::conditional_t<axes::in_range, ok, reduction_axes_failure<S, A>>::type;
};

}  // namespace detail

// reduce_t<S, A, K>: the shape of summing S over the axes A (Axes<...> or AllAxes).
template <ShapeType S, AxesType A = AllAxes, keep_dims K = keep_dims::no>
using reduce_t = typename detail::reduce_impl<S, A, K>::type;

}  // namespace fusegrad
