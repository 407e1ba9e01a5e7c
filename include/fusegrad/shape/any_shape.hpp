// shape/any_shape.hpp -- AnyShape: a shape whose rank, too, is known only at run time (Tensor).
#pragma once

#include <type_traits>

#include <fusegrad/shape/broadcast.hpp>
#include <fusegrad/shape/reduce.hpp>
#include <fusegrad/shape/shape.hpp>

namespace fusegrad {

/// The static shape of a value whose rank is chosen at run time, such as a Tensor.
/// Everything about it is checked at run time; combining it with anything gives AnyShape.
struct AnyShape {};

/// A Shape<...> or AnyShape: what an expression may declare as its static shape.
template <class S>
concept ShapeLike = ShapeType<S> || std::same_as<S, AnyShape>;

namespace detail {
template <class A, class B>
struct common_shape_impl {
  using type = AnyShape;
};
template <ShapeType A, ShapeType B>
struct common_shape_impl<A, B> {
  using type = broadcast_t<A, B>;
};
template <class S, class A, keep_dims K>
struct reduced_shape_impl {
  // A tensor's rank is known at run time only, but its reduction's axes at compile time, as a static shape's are.
  static_assert(axes_named_once_v<A>, "fusegrad: a reduction names the same axis twice; name each axis once");
  using type = AnyShape;
};
template <ShapeType S, class A, keep_dims K>
struct reduced_shape_impl<S, A, K> {
  using type = reduce_t<S, A, K>;
};
template <>
struct reduced_shape_impl<AnyShape, AllAxes, keep_dims::no> {
  using type = Shape<>;  // whatever the rank, nothing is left: a scalar
};
}  // namespace detail

// common_shape_t<A, B>: broadcast_t for shape-likes; AnyShape as soon as one of them is.
template <ShapeLike A, ShapeLike B>
using common_shape_t = typename detail::common_shape_impl<A, B>::type;

// reduced_shape_t<S, A, K>: reduce_t for shape-likes; AnyShape stays AnyShape, but for a reduction
// over all axes without keepdims (a scalar).
template <ShapeLike S, AxesType A, keep_dims K>
using reduced_shape_t = typename detail::reduced_shape_impl<S, A, K>::type;

// static_size_v<S>: the element count when S is fully static, else dyn.
template <ShapeLike S>
inline constexpr std::size_t static_size_v = [] {
  if constexpr (std::is_same_v<S, AnyShape>) {
    return dyn;
  } else if constexpr (!is_static_v<S>) {
    return dyn;
  } else {
    return size_v<S>;
  }
}();

// holds_one_value_v<E>: whether the static shape of E (an expression, a leaf, a tensor type) holds exactly one value.
template <class E>
inline constexpr bool holds_one_value_v = static_size_v<typename E::static_shape> == 1;

}  // namespace fusegrad
