// ops/transpose.hpp -- 2-D transpose, and its vector-Jacobian product.
#pragma once

#include <string_view>
#include <type_traits>
#include <utility>

#include <Eigen/Core>

#include <fusegrad/detail/make_node.hpp>
#include <fusegrad/error.hpp>
#include <fusegrad/ops/matrix_view.hpp>

namespace fusegrad {

namespace detail {
// Never defined: the diagnostic of a transpose of a non-matrix (shape.hpp: how a shape rule reports).
template <class S, fixed_text Shape>
struct transpose_needs_a_matrix_not;

template <class S>
struct transpose_shape {
  using type = AnyShape;
};
template <ShapeType S>
  requires(S::rank == 2)
struct transpose_shape<S> {
  using type = Shape<S::extents[1], S::extents[0]>;
};
template <ShapeType S>
  requires(S::rank != 2)
struct transpose_shape<S> {
  enum : std::size_t { report = sizeof(transpose_needs_a_matrix_not<S, shapes_text<S>>) };  // a rank-2 (rows, cols)
  using type = S;  // after the one error, a shape, so that nothing else fails
};
}  // namespace detail

/// The transpose of a matrix.
///   value: Y = X^T
///   vjp:   dX = dY^T
struct transpose_op {
  static constexpr std::string_view name = "transpose";
  static constexpr std::string_view backward_name = "TBackward";
  static constexpr vjp_needs needs = vjp_needs::none;
  static constexpr std::size_t arity = 1;

  template <ShapeLike S>
  using result_shape = typename detail::transpose_shape<S>::type;

  static Extents result_extents(const Extents& x) {
    if (x.rank() != 2) throw shape_error("fusegrad::transpose(x): x must be a matrix, got shape " + x.to_string());
    return Extents{x[1], x[0]};
  }

  template <class T>
  static void value(T* y, const operands<T, 1>& in) {
    transpose_into(y, in.values[0], in.extents[0][0], in.extents[0][1]);
  }
  template <std::size_t I, class T>
  static void vjp(T* dx, const T* dy, const operands<T, 1>& in, const T* /*y*/) {
    transpose_into(dx, dy, in.extents[0][1], in.extents[0][0]);
  }

 private:
  // out (c, r) = in (r, c)^T, both row-major.
  template <class T>
  static void transpose_into(T* out, const T* in, std::size_t r, std::size_t c) {
    detail::matrix_view(out, c, r) = detail::matrix_view(in, r, c).transpose();
  }
};

/// Matrix transpose: `fg::transpose(W)`.
template <Differentiable X>
[[nodiscard]] constexpr auto transpose(X&& x) {
  return detail::make_materialized<transpose_op>(std::forward<X>(x));
}

}  // namespace fusegrad
