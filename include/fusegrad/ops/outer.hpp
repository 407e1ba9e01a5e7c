// ops/outer.hpp -- the outer product of two vectors, and its vector-Jacobian products.
#pragma once

#include <string>
#include <string_view>
#include <utility>

#include <Eigen/Core>

#include <fusegrad/detail/make_node.hpp>
#include <fusegrad/error.hpp>
#include <fusegrad/ops/matrix_view.hpp>

namespace fusegrad {

namespace detail {
// Never defined: the diagnostic of outer's static shapes (shape.hpp: how a shape rule reports).
template <class A, class B, fixed_text Shapes>
struct outer_needs_two_vectors_not;

template <class A, class B>
struct outer_shape {
  using type = AnyShape;
};
template <ShapeType A, ShapeType B>
struct outer_shape<A, B> {
  struct ok {
    using type = Shape<A::extents[0], B::extents[0]>;
  };
  struct failed {
    enum : std::size_t { report = sizeof(outer_needs_two_vectors_not<A, B, shapes_text<A, B>>) };
    using type = AnyShape;  // after the one error, a shape, so that nothing else fails
  };
  using type = typename std::conditional_t<A::rank == 1 && B::rank == 1, ok, failed>::type;
};
}  // namespace detail

/// The outer product of a (m) and b (n), PyTorch's outer:
///   value: Y = a b^T, (m, n)
///   vjp:   da = dY b, db = dY^T a
struct outer_op {
  static constexpr std::string_view name = "outer";
  static constexpr std::string_view backward_name = "OuterBackward";
  static constexpr vjp_needs needs = vjp_needs::input;
  static constexpr std::size_t arity = 2;

  template <ShapeLike A, ShapeLike B>
  using result_shape = typename detail::outer_shape<A, B>::type;

  static Extents result_extents(const Extents& a, const Extents& b) {
    if (a.rank() != 1 || b.rank() != 1)
      throw shape_error("fusegrad::outer(a, b): both operands must be vectors, got " + a.to_string() + " and " +
                        b.to_string());
    return Extents{a[0], b[0]};
  }

  template <class T>
  static void value(T* y, const operands<T, 2>& in) {
    detail::matrix_view(y, size(in, 0), size(in, 1)).noalias() = column(in, 0) * column(in, 1).transpose();
  }
  template <std::size_t I, class T>
  static void vjp(T* dx, const T* dy, const operands<T, 2>& in, const T* /*y*/) {
    const auto g = detail::matrix_view(dy, size(in, 0), size(in, 1));
    if constexpr (I == 0)
      detail::matrix_view(dx, size(in, 0), 1).noalias() = g * column(in, 1);
    else
      detail::matrix_view(dx, size(in, 1), 1).noalias() = g.transpose() * column(in, 0);
  }

 private:
  template <class T>
  static std::size_t size(const operands<T, 2>& in, std::size_t k) {
    return in.extents[k][0];
  }
  template <class T>
  static auto column(const operands<T, 2>& in, std::size_t k) {
    return detail::matrix_view(in.values[k], size(in, k), 1);
  }
};

/// The outer product of two vectors: `fg::outer(a, b)` is (m, n) for a (m) and b (n).
template <Differentiable A, Differentiable B>
[[nodiscard]] constexpr auto outer(A&& a, B&& b) {
  return detail::make_materialized<outer_op>(std::forward<A>(a), std::forward<B>(b));
}

}  // namespace fusegrad
