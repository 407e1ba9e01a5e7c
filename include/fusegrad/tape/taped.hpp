// tape/taped.hpp -- fg::taped: a static expression recorded with one tape node per operation, as an eager framework
// records it.
#pragma once

#include <span>
#include <tuple>
#include <type_traits>
#include <utility>

#include <boost/hana/unpack.hpp>

#include <fusegrad/expr/children.hpp>
#include <fusegrad/expr/leaf.hpp>
#include <fusegrad/tape/basic_tensor.hpp>
#include <fusegrad/tape/fused.hpp>
#include <fusegrad/tape/tensor_factories.hpp>

namespace fusegrad {

/// Records the same expression with one tape node per operation, as an eager framework
/// does: what the benchmarks compare fused recording against.
template <Differentiable E>
[[nodiscard]] auto taped(const E& expr);

namespace detail {
// An operand of a taped node: a tensor as it is, a sub-expression recorded first, and a
// number (a leaf of one value, Shape<>) copied into the node as a constant, as PyTorch keeps
// the scalar of `t * 2` in its MulBackward: a tensor of its own would cost a graph object per
// use. Other leaves become tensors that take no gradient; a Var meets taped()'s assertion.
template <class X>
auto taped_operand(const X& x) {
  using T = typename X::value_type;
  if constexpr (!is_tensor_v<X> && X::kind == node_kind::leaf && !X::takes_grad &&
                std::is_same_v<typename X::static_shape, Shape<>>)
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
  } else if constexpr (!detail::one_scalar_type_v<node_type>) {
    return BasicTensor<T>{};  // after the one error of mixed scalar types, nothing that adds another
  } else if constexpr (node_type::kind == node_kind::leaf) {
    static_assert(!node_type::takes_grad,
                  "fusegrad::taped(expr): a Var takes its gradient from fg::value_and_grad, not from the tape; record "
                  "Tensors (fg::Tensor::from(values).requires_grad_()), or make data a Const");
    return BasicTensor<T>::from(std::span<const T>(expr.data(), expr.extents().size()), expr.extents());
  } else {
    // Operands are recorded left to right: a braced list orders their evaluation, where the
    // arguments of a call are evaluated in an unspecified order.
    return boost::hana::unpack(children(expr), [&expr](const auto&... x) {
      return std::apply([&expr](auto&&... operand) { return fused(with_children(expr, std::move(operand)...)); },
                        std::tuple<decltype(taped_operand(x))...>{taped_operand(x)...});
    });
  }
}

}  // namespace fusegrad
