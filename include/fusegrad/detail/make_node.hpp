// detail/make_node.hpp -- the one place an op spec and its operands become an expression node.
#pragma once

#include <tuple>
#include <type_traits>
#include <utility>

#include <fusegrad/concepts.hpp>
#include <fusegrad/expr/binary_expr.hpp>
#include <fusegrad/expr/closure.hpp>
#include <fusegrad/expr/leaf.hpp>
#include <fusegrad/expr/materialized_expr.hpp>
#include <fusegrad/expr/unary_expr.hpp>

namespace fusegrad {

/// What a binary operation accepts: two expressions, or an expression and a plain number.
template <class A, class B>
concept BinaryOperands = (Differentiable<A> && (Differentiable<B> || Number<B>)) || (Number<A> && Differentiable<B>);

namespace detail {

// operand_t<Other, V>: how an operand passed as V&& is held beside `Other`: by its closure,
// or, for a plain number, as a scalar Const of Other's scalar type.
template <class Other, class V>
struct operand_impl {
  using type = closure_t<V&&>;
};
template <class Other, class V>
  requires Number<V>
struct operand_impl<Other, V> {
  using type = Const<typename std::remove_cvref_t<Other>::value_type, Shape<>>;
};
template <class Other, class V>
using operand_t = typename operand_impl<Other, V>::type;

template <class Other, class V>
operand_t<Other, V> as_operand(V&& v) {
  if constexpr (Number<V>) {
    using T = typename std::remove_cvref_t<Other>::value_type;
    return Const<T, Shape<>>(static_cast<T>(v));
  } else {
    return std::forward<V>(v);
  }
}

template <UnaryOp Op, Differentiable X>
constexpr auto make_unary(X&& x) {
  return unary_expr<Op, closure_t<X&&>>{std::forward<X>(x)};
}

template <BinaryOp Op, class A, class B>
  requires BinaryOperands<A, B>
constexpr auto make_binary(A&& a, B&& b) {
  using lhs = operand_t<B, A>;
  using rhs = operand_t<A, B>;
  return binary_expr<Op, lhs, rhs>{as_operand<B>(std::forward<A>(a)), as_operand<A>(std::forward<B>(b))};
}

template <MaterializedOp Op, Differentiable... Xs>
constexpr auto make_materialized(Xs&&... xs) {
  return materialized_expr<Op, closure_t<Xs&&>...>{std::tuple<closure_t<Xs&&>...>(std::forward<Xs>(xs)...)};
}
// The same for an op with run-time parameters: the node keeps `op`.
template <MaterializedOp Op, Differentiable... Xs>
constexpr auto make_materialized_with(Op op, Xs&&... xs) {
  return materialized_expr<Op, closure_t<Xs&&>...>{std::tuple<closure_t<Xs&&>...>(std::forward<Xs>(xs)...),
                                                   std::move(op)};
}

}  // namespace detail
}  // namespace fusegrad
