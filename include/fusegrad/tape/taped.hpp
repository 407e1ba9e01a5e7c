// tape/taped.hpp -- fg::taped: a static expression recorded with one tape node per operation, as an eager framework
// records it.
#pragma once

#include <span>
#include <tuple>
#include <type_traits>

#include <fusegrad/expr/binary_expr.hpp>
#include <fusegrad/expr/leaf.hpp>
#include <fusegrad/expr/materialized_expr.hpp>
#include <fusegrad/expr/unary_expr.hpp>
#include <fusegrad/tape/fused.hpp>
#include <fusegrad/tape/tensor.hpp>

namespace fusegrad {

/// Records the same expression with one tape node per operation, as an eager framework
/// does: what the benchmarks compare fused recording against.
template <Differentiable E>
[[nodiscard]] auto taped(const E& expr);

namespace detail {
// An operand of a taped node: a tensor as it is, a sub-expression recorded first, and a
// number (a leaf of one value, Shape<>) copied into the node as a constant, as PyTorch keeps
// the scalar of `t * 2` in its MulBackward: a tensor of its own would cost a graph object per
// use. Other leaves become tensors that take no gradient.
template <class X>
auto taped_operand(const X& x) {
  using T = typename X::value_type;
  if constexpr (!is_tensor_v<X> && X::kind == node_kind::leaf && std::is_same_v<typename X::static_shape, Shape<>>)
    return Const<T, Shape<>>(x.data()[0]);
  else
    return taped(x);
}
}  // namespace detail

template <Differentiable E>
[[nodiscard]] auto taped(const E& expr) {
  using node_type = std::remove_cvref_t<E>;
  using T = typename node_type::value_type;
  using detail::taped_operand;
  if constexpr (detail::is_tensor_v<node_type>) {
    return expr;
  } else if constexpr (node_type::kind == node_kind::leaf) {
    return BasicTensor<T>::from(std::span<const T>(expr.data(), expr.extents().size()), expr.extents());
  } else if constexpr (node_type::kind == node_kind::materialized) {
    return std::apply(
        [](const auto&... a) {
          using op = typename node_type::op;
          return fused(materialized_expr<op, decltype(taped_operand(a))...>{std::tuple(taped_operand(a)...)});
        },
        expr.args);
  } else if constexpr (detail::is_unary_expr_v<node_type>) {
    return fused(unary_expr<typename node_type::op, decltype(taped_operand(expr.x))>{taped_operand(expr.x)});
  } else {
    return fused(
        binary_expr<typename node_type::op, decltype(taped_operand(expr.lhs)), decltype(taped_operand(expr.rhs))>{
            taped_operand(expr.lhs), taped_operand(expr.rhs)});
  }
}

}  // namespace fusegrad
