// expr/unary_expr.hpp -- unary_expr<Op, X>: one element-wise node, generic over its op spec.
#pragma once

#include <fusegrad/concepts.hpp>
#include <fusegrad/expr/backward_of_expression.hpp>
#include <fusegrad/expr/closure.hpp>

namespace fusegrad {

/// The node `Op(x)` of a static expression. Op is a stateless spec (ops/sin.hpp ...); this
/// template is the same for every element-wise unary op, like Eigen's CwiseUnaryOp.
template <UnaryOp Op, class X>
struct unary_expr {
  using op = Op;
  using operand = detail::node_t<X>;
  using value_type = typename operand::value_type;
  using static_shape = typename operand::static_shape;
  static constexpr node_kind kind = node_kind::elementwise;
  static constexpr bool takes_grad = is_differentiable_op_v<Op> && operand::takes_grad;

  X x;

  // The operand's extents, by reference where it holds them (a leaf of run-time shape): no copy of 80 bytes. A
  // temporary expression gives a copy, which outlives it.
  [[nodiscard]] decltype(auto) extents() const& { return x.extents(); }
  [[nodiscard]] Extents extents() const&& { return x.extents(); }

  /// Not recorded, so no backward(): a compile error that says what to write instead.
  template <class... A>
  void backward(A&&...) const {
    detail::backward_of_expression<A...>();
  }
};

namespace detail {
template <class E>
inline constexpr bool is_unary_expr_v = false;
template <class Op, class X>
inline constexpr bool is_unary_expr_v<unary_expr<Op, X>> = true;
}  // namespace detail

}  // namespace fusegrad
