// ops/matmul.hpp -- 2-D matrix product through Eigen's GEMM, and its vector-Jacobian products.
#pragma once

#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include <Eigen/Core>

#include <fusegrad/detail/make_node.hpp>
#include <fusegrad/error.hpp>
#include <fusegrad/ops/matrix_view.hpp>

namespace fusegrad {

namespace detail {
// Never defined: the diagnostics of matmul's static shapes (shape.hpp: how a shape rule reports).
template <class A, class B, fixed_text Shapes>
struct matmul_inner_extents_differ;
template <class A, class B, fixed_text Shapes>
struct matmul_needs_two_matrices_not;

template <class A, class B>
struct matmul_shape {
  using type = AnyShape;
};
template <ShapeType A, ShapeType B>
struct matmul_shape<A, B> {
  static constexpr bool matrices = A::rank == 2 && B::rank == 2;
  static constexpr bool inner_ok =
      !matrices || A::extents[A::rank - 1] == dyn || B::extents[0] == dyn || A::extents[A::rank - 1] == B::extents[0];
  struct ok {
    using type = Shape<A::extents[0], B::extents[B::rank - 1]>;
  };
  struct failed {
    using failure = std::conditional_t<matrices, matmul_inner_extents_differ<A, B, shapes_text<A, B>>,
                                       matmul_needs_two_matrices_not<A, B, shapes_text<A, B>>>;
    enum : std::size_t { report = sizeof(failure) };  // a is (m, k), b must be (k, n)
    using type = AnyShape;                            // after the one error, a shape, so that nothing else fails
  };
  using type = typename std::conditional_t<matrices && inner_ok, ok, failed>::type;
};
}  // namespace detail

/// The matrix product of a (m,k) and b (k,n), row-major, through Eigen's GEMM.
///   value: Y = A B
///   vjp:   dA = dY B^T, dB = A^T dY
struct matmul_op {
  static constexpr std::string_view name = "matmul";
  static constexpr std::string_view backward_name = "MmBackward";
  static constexpr vjp_needs needs = vjp_needs::input;
  static constexpr std::size_t arity = 2;

  template <ShapeLike A, ShapeLike B>
  using result_shape = typename detail::matmul_shape<A, B>::type;

  static Extents result_extents(const Extents& a, const Extents& b) {
    if (a.rank() != 2 || b.rank() != 2)
      throw shape_error("fusegrad::matmul(a, b): both operands must be matrices, got " + a.to_string() + " x " +
                        b.to_string());
    if (a[1] != b[0])
      throw shape_error("fusegrad::matmul(a, b): inner extents differ, " + a.to_string() + " x " + b.to_string() +
                        "; a must be (m,k) and b (k,n)");
    return Extents{a[0], b[1]};
  }

  template <class T>
  static void value(T* y, const operands<T, 2>& in) {
    detail::matrix_view(y, in.extents[0][0], in.extents[1][1]).noalias() = lhs(in) * rhs(in);
  }
  template <std::size_t I, class T>
  static void vjp(T* dx, const T* dy, const operands<T, 2>& in, const T* /*y*/) {
    const auto g = detail::matrix_view(dy, in.extents[0][0], in.extents[1][1]);
    if constexpr (I == 0)
      detail::matrix_view(dx, in.extents[0][0], in.extents[0][1]).noalias() = g * rhs(in).transpose();
    else
      detail::matrix_view(dx, in.extents[1][0], in.extents[1][1]).noalias() = lhs(in).transpose() * g;
  }

 private:
  template <class T>
  static auto lhs(const operands<T, 2>& in) {
    return detail::matrix_view(in.values[0], in.extents[0][0], in.extents[0][1]);
  }
  template <class T>
  static auto rhs(const operands<T, 2>& in) {
    return detail::matrix_view(in.values[1], in.extents[1][0], in.extents[1][1]);
  }
};
static_assert(MaterializedOp<matmul_op>);

/// Matrix product: `fg::matmul(W, X)` for W (m,k) and X (k,n).
template <Differentiable A, Differentiable B>
[[nodiscard]] constexpr auto matmul(A&& a, B&& b) {
  return detail::make_materialized<matmul_op>(std::forward<A>(a), std::forward<B>(b));
}

}  // namespace fusegrad
