// expr/linear_root.hpp -- LinearRoot: a scalar expression that depends only linearly on full sums and means
// (-sum(f), sum(f) / n, 0.5 * mean(e * e) + 0.01 * sum(w * w)), so every reduction's upstream is known before
// any value is: the sweep runs each reduction's chain once, forward and reverse in one loop.
#pragma once

#include <cstddef>
#include <type_traits>

#include <fusegrad/concepts.hpp>
#include <fusegrad/expr/binary_expr.hpp>
#include <fusegrad/expr/closure.hpp>
#include <fusegrad/expr/leaf.hpp>
#include <fusegrad/expr/materialized_expr.hpp>
#include <fusegrad/expr/unary_expr.hpp>
#include <fusegrad/ops/add.hpp>
#include <fusegrad/ops/div.hpp>
#include <fusegrad/ops/mul.hpp>
#include <fusegrad/ops/negate.hpp>
#include <fusegrad/ops/sub.hpp>
#include <fusegrad/shape/any_shape.hpp>

namespace fusegrad::detail {

// A number fixed in the expression: a Const holding one value of its own, or a literal (which
// becomes one). A Tensor is not one, even without requires_grad, nor a view: their values may
// change before a deferred value is computed.
template <class E>
inline constexpr bool is_constant_number_v = [] {
  if constexpr (E::kind == node_kind::leaf && !is_handle_v<E> && !is_view_const<E>::value)
    return !E::takes_grad && holds_one_value_v<E>;
  else
    return false;
}();

template <class E>
struct is_linear_root : std::false_type {};

template <class E>
inline constexpr bool is_linear_root_v = is_linear_root<E>::value;

// sum(f), mean(f) over all axes.
template <MaterializedOp Op, class... Xs>
  requires LinearFullReduction<Op>
struct is_linear_root<materialized_expr<Op, Xs...>> : std::true_type {
};

// -r
template <class X>
struct is_linear_root<unary_expr<negate_op, X>> : is_linear_root<node_t<X>> {};

// r + s, r + c, c + r, and the same with -
template <class Op, class L, class R>
  requires(std::is_same_v<Op, add_op> || std::is_same_v<Op, sub_op>)
struct is_linear_root<binary_expr<Op, L, R>>
    : std::bool_constant<(is_linear_root_v<node_t<L>> &&
                          (is_linear_root_v<node_t<R>> || is_constant_number_v<node_t<R>>)) ||
                         (is_constant_number_v<node_t<L>> && is_linear_root_v<node_t<R>>)> {};

// c * r, r * c
template <class L, class R>
struct is_linear_root<binary_expr<mul_op, L, R>>
    : std::bool_constant<(is_linear_root_v<node_t<L>> && is_constant_number_v<node_t<R>>) ||
                         (is_constant_number_v<node_t<L>> && is_linear_root_v<node_t<R>>)> {};

// r / c
template <class L, class R>
struct is_linear_root<binary_expr<div_op, L, R>>
    : std::bool_constant<is_linear_root_v<node_t<L>> && is_constant_number_v<node_t<R>>> {};

// The number of full reductions in a linear root.
template <class E>
constexpr std::size_t reduction_count() {
  if constexpr (!is_linear_root_v<E>)
    return 0;
  else if constexpr (E::kind == node_kind::materialized)
    return 1;
  else if constexpr (requires { typename E::operand; })
    return reduction_count<typename E::operand>();
  else
    return reduction_count<typename E::lhs_type>() + reduction_count<typename E::rhs_type>();
}

// Checks the run-time extents under every reduction of a linear root (shape_error on a mismatch).
// The one-pass sweep meets the reductions one after the other, writing each one's gradients as
// it goes, and a root's own extents() need not look below a reduction: so this runs first where
// the sweep would write before it meets a mismatch (more than one reduction). (Where a caller's
// buffer is written, value_and_grad_into, and where a Tensor's node defers its value, every
// materialised node is checked: check_materialized_extents_below.)
template <class E>
void check_reductions_fit(const E& e) {
  if constexpr (E::kind == node_kind::materialized) {
    (void)e.extents();
  } else if constexpr (E::kind == node_kind::elementwise && requires { e.x; }) {
    check_reductions_fit(e.x);
  } else if constexpr (E::kind == node_kind::elementwise) {
    if constexpr (is_linear_root_v<node_t<decltype(e.lhs)>>) check_reductions_fit(e.lhs);
    if constexpr (is_linear_root_v<node_t<decltype(e.rhs)>>) check_reductions_fit(e.rhs);
  }
}

}  // namespace fusegrad::detail

namespace fusegrad {

/// A scalar expression built from full sums and means by negation, adding and subtracting them and
/// constant numbers, and multiplying or dividing by constant numbers: its gradient needs no
/// reduction's value, so the sweep differentiates it in one pass (value_and_grad, a Tensor's node).
template <class E>
concept LinearRoot = detail::is_linear_root_v<std::remove_cvref_t<E>>;

}  // namespace fusegrad
