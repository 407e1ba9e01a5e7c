// ops/broadcast_to.hpp -- broadcast_to: a tensor repeated along broadcast axes, and its gradient summed back.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string_view>
#include <utility>

#include <fusegrad/detail/make_node.hpp>
#include <fusegrad/error.hpp>
#include <fusegrad/shape/broadcast.hpp>
#include <fusegrad/shape/reduce_broadcast.hpp>

namespace fusegrad {

namespace detail {
// Never defined: the diagnostic of a static shape that does not broadcast to the target.
template <class S, class Target, fixed_text Shapes>
struct shape_does_not_broadcast_to;

template <ShapeType S, ShapeType Target>
constexpr bool broadcasts_to() {
  return broadcasts_unchanged(S::extents, Target::extents);
}

inline void check_broadcasts_to(const Extents& x, const Extents& target) {
  if (!broadcasts_to(x, target)) throw not_broadcast_to_error("fusegrad::broadcast_to", x, target);
}

// broadcast_to<Ds...>: a static target.
template <std::size_t... Ds>
struct broadcast_to_shape {
  using target = Shape<Ds...>;
  template <ShapeLike S>
  struct checked {
    using type = target;
  };
  template <ShapeType S>
    requires(is_static_v<S> && !broadcasts_to<S, target>())
  struct checked<S> {
    enum : std::size_t { report = sizeof(shape_does_not_broadcast_to<S, target, shapes_text<S, target>>) };
    using type = target;
  };
  template <ShapeLike S>
  using shape = typename checked<S>::type;
  static Extents extents() { return Extents::of<target>(); }
};

// broadcast_to(x, {3, 4}): a target given at run time.
struct broadcast_to_extents {
  template <ShapeLike>
  using shape = AnyShape;
  Extents target;
  [[nodiscard]] const Extents& extents() const noexcept { return target; }
};
}  // namespace detail

/// x repeated along the axes where the target is larger, as broadcasting in an element-wise
/// op repeats it (PyTorch's broadcast_to / expand).
///   value: y = x repeated to the target extents
///   vjp:   dx = dy summed over the repeated axes (reduce_broadcast)
template <class Target>
struct broadcast_to_op {
  static constexpr std::string_view name = "broadcast_to";
  static constexpr std::string_view backward_name = "ExpandBackward";
  static constexpr vjp_needs needs = vjp_needs::none;
  static constexpr std::size_t arity = 1;

  [[no_unique_address]] Target target{};

  template <ShapeLike S>
  using result_shape = typename Target::template shape<S>;
  [[nodiscard]] Extents result_extents(const Extents& x) const {
    detail::check_broadcasts_to(x, target.extents());
    return target.extents();
  }

  template <class T>
  void value(T* y, const operands<T, 1>& in) const {
    broadcast_into(y, in.values[0], in.extents[0], target.extents());
  }
  template <std::size_t I, class T>
  void vjp(T* dx, const T* dy, const operands<T, 1>& in, const T* /*y*/) const {
    std::fill_n(dx, in.extents[0].size(), T(0));
    reduce_broadcast_into(dx, dy, target.extents(), in.extents[0]);
  }
};

/// x broadcast to a static shape: `fg::broadcast_to<3, 4>(x)`; a static x that does not
/// broadcast to it is a compile error naming both shapes.
template <std::size_t... Ds, Differentiable X>
[[nodiscard]] constexpr auto broadcast_to(X&& x) {
  return detail::make_materialized_with(broadcast_to_op<detail::broadcast_to_shape<Ds...>>{}, std::forward<X>(x));
}
/// x broadcast to extents given at run time: `fg::broadcast_to(t, {3, 4})`; throws shape_error
/// when x does not broadcast to them.
template <Differentiable X>
[[nodiscard]] auto broadcast_to(X&& x, const Extents& target) {
  return detail::make_materialized_with(broadcast_to_op<detail::broadcast_to_extents>{{target}}, std::forward<X>(x));
}

}  // namespace fusegrad
