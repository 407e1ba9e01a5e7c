// shape/reshape_rules.hpp -- the shape rules of reshape, flatten, squeeze and unsqueeze, static and at run time.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include <fusegrad/error.hpp>
#include <fusegrad/shape/any_shape.hpp>
#include <fusegrad/shape/extents.hpp>
#include <fusegrad/shape/resolve_axis.hpp>
#include <fusegrad/shape/shape.hpp>

namespace fusegrad::detail {

// Each rule gives reshape_op its name, its backward's name, `shape<S>` (the static result shape,
// a compile error for a static mistake) and `extents(x)` (the same at run time, throwing).

// Never defined: the diagnostics of the static rules (shape.hpp: how a shape rule reports).
template <class From, class To, fixed_text Shapes>
struct reshape_changes_the_number_of_elements;
template <class S, std::size_t Axis, fixed_text Shape>
struct squeeze_axis_out_of_range;
template <class S, std::size_t Axis, fixed_text Shape>
struct unsqueeze_axis_past_the_rank_of;
template <class S, std::size_t MaxRank, fixed_text Shape>
struct unsqueeze_of_a_shape_that_has_the_most_axes;

// reshape<Ds...>: a static target shape.
template <std::size_t... Ds>
struct reshape_to_shape {
  static constexpr std::string_view name = "reshape";
  static constexpr std::string_view backward_name = "ViewBackward";
  using target = Shape<Ds...>;

  template <ShapeLike S>
  struct checked {
    using type = target;
  };
  template <ShapeType S>
    requires(static_size_v<S> != dyn && static_size_v<S> != size_v<target>)
  struct checked<S> {
    enum : std::size_t { report = sizeof(reshape_changes_the_number_of_elements<S, target, shapes_text<S, target>>) };
    using type = target;
  };
  template <ShapeLike S>
  using shape = typename checked<S>::type;

  static Extents extents(const Extents& x) {
    if (x.size() != size_v<target>)
      throw shape_error("fusegrad::reshape: shape " + x.to_string() + " has " + std::to_string(x.size()) +
                        " elements, shape " + Extents::of<target>().to_string() + " has " +
                        std::to_string(size_v<target>) + "; a reshape keeps the number of elements");
    return Extents::of<target>();
  }
};

// reshape(x, {2, -1}): a target given at run time, one extent of it -1 (inferred).
struct reshape_to_extents {
  static constexpr std::string_view name = "reshape";
  static constexpr std::string_view backward_name = "ViewBackward";
  template <ShapeLike>
  using shape = AnyShape;

  std::array<std::int64_t, Extents::max_rank> target{};
  std::size_t rank = 0;

  [[nodiscard]] std::string target_text() const {
    std::string text = "(";
    for (std::size_t r = 0; r < rank; ++r) text += (r ? ", " : "") + std::to_string(target[r]);
    return text + ")";
  }
  [[nodiscard]] Extents extents(const Extents& x) const {
    std::array<std::size_t, Extents::max_rank> out{};
    std::size_t known = 1, inferred = no_axis;
    // The given extents' product, held at Extents::max_size + 1 once it passes what any shape holds (no extent of 0
    // among them): compared with x's size below, it cannot wrap around to a size that matches.
    constexpr std::size_t too_many = Extents::max_size + 1;
    for (std::size_t r = 0; r < rank; ++r) {
      if (target[r] == -1 && inferred == no_axis) {
        inferred = r;
      } else if (target[r] < 0) {
        throw shape_error("fusegrad::reshape: invalid target shape " + target_text() +
                          ": extents are at least 0, and one of them may be -1 (inferred)");
      } else {
        out[r] = static_cast<std::size_t>(target[r]);
        known = out[r] == 0 || known == 0 ? 0 : known > Extents::max_size / out[r] ? too_many : known * out[r];
      }
    }
    const std::string cannot = "fusegrad::reshape: shape " + x.to_string() + " (" + std::to_string(x.size()) +
                               " elements) cannot be reshaped to " + target_text();
    if (inferred != no_axis) {
      if (known == 0 || x.size() % known != 0)
        throw shape_error(cannot + (known == 0          ? ": the -1 extent is undetermined when another extent is 0"
                                    : known == too_many ? ": the other extents multiply to more than " +
                                                              Extents::max_size_text() + " elements"
                                                        : ": the other extents' product does not divide the number of "
                                                          "elements"));
      out[inferred] = x.size() / known;
    } else if (known != x.size()) {
      throw shape_error(
          cannot + (known == too_many
                        ? ": its extents multiply to more than " + Extents::max_size_text() + " elements"
                        : ": it has " + std::to_string(known) + " elements; a reshape keeps the number of elements"));
    }
    return Extents(std::span<const std::size_t>(out.data(), rank));
  }
};

// flatten(x): every axis into one.
struct flatten_all {
  static constexpr std::string_view name = "flatten";
  static constexpr std::string_view backward_name = "ViewBackward";
  template <ShapeLike S>
  struct flat {
    using type = Shape<dyn>;
  };
  template <ShapeType S>
  struct flat<S> {
    using type = Shape<static_size_v<S>>;
  };
  template <ShapeLike S>
  using shape = typename flat<S>::type;
  static Extents extents(const Extents& x) { return Extents{x.size()}; }
};

// flatten(x, start, end): axes start to end (inclusive) into one, as PyTorch's flatten.
struct flatten_axes {
  static constexpr std::string_view name = "flatten";
  static constexpr std::string_view backward_name = "ViewBackward";
  template <ShapeLike>
  using shape = AnyShape;

  std::int64_t start = 0, end = -1;

  [[nodiscard]] Extents extents(const Extents& x) const {
    if (x.rank() == 0) {  // PyTorch: a scalar flattens to one element, its axes read as those of a vector (0 or -1)
      (void)resolve_axis(start, 1, x, "fusegrad::flatten (start)");
      (void)resolve_axis(end, 1, x, "fusegrad::flatten (end)");
      return Extents{1};
    }
    const std::size_t first = resolve_axis(start, x.rank(), x, "fusegrad::flatten (start)");
    const std::size_t last = resolve_axis(end, x.rank(), x, "fusegrad::flatten (end)");
    if (first > last)
      throw shape_error("fusegrad::flatten: start axis " + std::to_string(start) + " comes after end axis " +
                        std::to_string(end) + " of shape " + x.to_string());
    std::array<std::size_t, Extents::max_rank> out{};
    std::size_t k = 0, merged = 1;
    for (std::size_t r = 0; r < x.rank(); ++r) {
      if (r < first || r > last)
        out[k++] = x[r];
      else if ((merged *= x[r]), r == last)
        out[k++] = merged;
    }
    return Extents(std::span<const std::size_t>(out.data(), k));
  }
};

// squeeze(x): every axis of extent 1 removed; squeeze(x, axis): that axis, if its extent is 1.
struct squeeze_all {
  static constexpr std::string_view name = "squeeze";
  static constexpr std::string_view backward_name = "SqueezeBackward";
  template <ShapeLike S>
  struct squeezed {
    using type = AnyShape;  // a dyn extent may be 1: the rank is known only at run time
  };
  template <ShapeType S>
    requires(is_static_v<S>)
  struct squeezed<S> {
    static constexpr std::size_t rank = S::rank - std::size_t(std::ranges::count(S::extents, std::size_t{1}));
    static constexpr std::array<std::size_t, rank> kept = [] {
      std::array<std::size_t, rank> out{};
      std::size_t k = 0;
      for (std::size_t e : S::extents)
        if (e != 1) out[k++] = e;
      return out;
    }();
    using type = shape_from_array<kept>;
  };
  template <ShapeLike S>
  using shape = typename squeezed<S>::type;

  static Extents extents(const Extents& x) {
    std::array<std::size_t, Extents::max_rank> out{};
    std::size_t k = 0;
    for (std::size_t e : x)
      if (e != 1) out[k++] = e;
    return Extents(std::span<const std::size_t>(out.data(), k));
  }
};

template <std::size_t Axis>
struct squeeze_static_axis {
  static constexpr std::string_view name = "squeeze";
  static constexpr std::string_view backward_name = "SqueezeBackward";
  template <ShapeLike S>
  struct squeezed {
    using type = AnyShape;
  };
  template <ShapeType S>
    requires(Axis >= S::rank && !(S::rank == 0 && Axis == 0))
  struct squeezed<S> {
    enum : std::size_t { report = sizeof(squeeze_axis_out_of_range<S, Axis, shapes_text<S>>) };
    using type = S;
  };
  template <ShapeType S>
    requires(S::rank == 0 && Axis == 0)
  struct squeezed<S> {  // PyTorch: a scalar's axis 0 is itself
    using type = S;
  };
  template <ShapeType S>
    requires(Axis < S::rank && S::extents[Axis] != dyn)
  struct squeezed<S> {
    static constexpr std::array<std::size_t, S::rank - (S::extents[Axis] == 1)> kept = [] {
      std::array<std::size_t, S::rank - (S::extents[Axis] == 1)> out{};
      std::size_t k = 0;
      for (std::size_t r = 0; r < S::rank; ++r)
        if (r != Axis || S::extents[r] != 1) out[k++] = S::extents[r];
      return out;
    }();
    using type = shape_from_array<kept>;
  };
  template <ShapeLike S>
  using shape = typename squeezed<S>::type;

  static Extents extents(const Extents& x) {
    if (x.rank() == 0 && Axis == 0) return x;  // PyTorch: a scalar's axis 0 is itself
    if (Axis >= x.rank())
      throw shape_error("fusegrad::squeeze: axis " + std::to_string(Axis) + " is out of range for shape " +
                        x.to_string());
    return x[Axis] == 1 ? erase_axis(x, Axis) : x;
  }
};

struct squeeze_axis {
  static constexpr std::string_view name = "squeeze";
  static constexpr std::string_view backward_name = "SqueezeBackward";
  template <ShapeLike>
  using shape = AnyShape;

  std::int64_t axis = 0;

  [[nodiscard]] Extents extents(const Extents& x) const {
    const std::size_t a = resolve_axis_scalar_too(axis, x, "fusegrad::squeeze");
    if (x.rank() == 0) return x;  // PyTorch: a scalar's axis 0 is itself
    return x[a] == 1 ? erase_axis(x, a) : x;
  }
};

// unsqueeze(x, axis): an axis of extent 1 inserted before `axis` (axis == rank appends one).
template <std::size_t Axis>
struct unsqueeze_static_axis {
  static constexpr std::string_view name = "unsqueeze";
  static constexpr std::string_view backward_name = "UnsqueezeBackward";
  template <ShapeLike S>
  struct inserted {
    using type = AnyShape;
  };
  template <ShapeType S>
    requires(Axis > S::rank)
  struct inserted<S> {
    enum : std::size_t { report = sizeof(unsqueeze_axis_past_the_rank_of<S, Axis, shapes_text<S>>) };
    using type = S;
  };
  template <ShapeType S>
    requires(Axis <= S::rank && S::rank == Extents::max_rank)
  struct inserted<S> {
    enum : std::size_t {
      report = sizeof(unsqueeze_of_a_shape_that_has_the_most_axes<S, Extents::max_rank, shapes_text<S>>)
    };
    using type = S;
  };
  template <ShapeType S>
    requires(Axis <= S::rank && S::rank < Extents::max_rank)
  struct inserted<S> {
    static constexpr std::array<std::size_t, S::rank + 1> out = [] {
      std::array<std::size_t, S::rank + 1> e{};
      for (std::size_t r = 0, k = 0; r <= S::rank; ++r) {
        if (r == Axis) e[k++] = 1;
        if (r < S::rank) e[k++] = S::extents[r];
      }
      return e;
    }();
    using type = shape_from_array<out>;
  };
  template <ShapeLike S>
  using shape = typename inserted<S>::type;

  static Extents extents(const Extents& x) {
    if (Axis > x.rank())
      throw shape_error("fusegrad::unsqueeze: axis " + std::to_string(Axis) + " is past the rank of shape " +
                        x.to_string() + " (at most " + std::to_string(x.rank()) + ")");
    return insert_axis(x, Axis, 1, "fusegrad::unsqueeze");
  }
};

struct unsqueeze_axis {
  static constexpr std::string_view name = "unsqueeze";
  static constexpr std::string_view backward_name = "UnsqueezeBackward";
  template <ShapeLike>
  using shape = AnyShape;

  std::int64_t axis = 0;

  [[nodiscard]] Extents extents(const Extents& x) const {
    // The result has one axis more: -1 appends, as in PyTorch.
    const std::size_t a = resolve_axis(axis, x.rank() + 1, x, "fusegrad::unsqueeze");
    return insert_axis(x, a, 1, "fusegrad::unsqueeze");
  }
};

}  // namespace fusegrad::detail
