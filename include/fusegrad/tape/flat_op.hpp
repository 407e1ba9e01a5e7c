// tape/flat_op.hpp -- flat_op: a one-op tape node's value and VJP run straight from its op spec on flat arrays.
#pragma once

#include <cstddef>

#include <Eigen/Core>

#include <fusegrad/concepts.hpp>
#include <fusegrad/detail/buffer.hpp>
#include <fusegrad/expr/binary_expr.hpp>
#include <fusegrad/expr/leaf.hpp>
#include <fusegrad/expr/unary_expr.hpp>
#include <fusegrad/expr/visit.hpp>
#include <fusegrad/tape/basic_tensor.hpp>
#include <fusegrad/tape/tensor_sinks.hpp>

namespace fusegrad::detail {

// Most nodes of a taped graph hold one element-wise op whose operands have the output's
// size (same-shaped or scalar tensors, nothing broadcast). For them the op spec's value and
// VJP run on Eigen maps of the whole arrays: the same numbers as the fused sweep, without
// the bookkeeping a one-op node cannot afford. A fused_node whose expression `applies`
// checks operands_fit() at recording and comes here when it holds.
template <class E>
struct flat_op {
  using T = typename E::value_type;
  template <class X>
  static constexpr bool direct_operand = is_tensor_v<X> || X::kind == node_kind::leaf;

  // E is one element-wise op over tensors and numbers, with at least one tensor.
  static constexpr bool applies = [] {
    if constexpr (is_unary_expr_v<E>)
      return is_tensor_v<node_t<decltype(E::x)>>;
    else if constexpr (E::kind == node_kind::elementwise)
      return direct_operand<node_t<decltype(E::lhs)>> && direct_operand<node_t<decltype(E::rhs)>> &&
             (is_tensor_v<node_t<decltype(E::lhs)>> || is_tensor_v<node_t<decltype(E::rhs)>>);
    else
      return false;
  }();

  // Every operand has the output's n elements: nothing is broadcast.
  static bool operands_fit(const E& e, std::size_t n) {
    if constexpr (is_unary_expr_v<E>)
      return size_of(e.x) == n;
    else
      return size_of(e.lhs) == n && size_of(e.rhs) == n;
  }

  // The n values of the op into out.
  static void value(const E& e, std::size_t n, T* out) {
    if (n == 1)
      map<1>(out, 1) = op_value<1>(e, 1);
    else
      map(out, n) = op_value(e, n);
  }

  // The VJP from the n values at grad_output, added into the operands' gradient destinations.
  static void backward(const E& e, std::size_t n, const T* grad_output, const tensor_sinks<T>& sinks) {
    if (n == 1)
      backward_of_size<1>(e, 1, grad_output, sinks);
    else
      backward_of_size(e, n, grad_output, sinks);
  }

 private:
  // n values as a flat array; N = 1 for one element, which Eigen then handles as a
  // fixed-size value (no loop, no call): a scalar tensor's op is a few instructions.
  template <int N = Eigen::Dynamic>
  static Eigen::Map<Eigen::Array<T, N, 1>> map(T* p, std::size_t n) {
    return {p, static_cast<Eigen::Index>(n)};
  }
  template <int N = Eigen::Dynamic>
  static Eigen::Map<const Eigen::Array<T, N, 1>> map(const T* p, std::size_t n) {
    return {p, static_cast<Eigen::Index>(n)};
  }

  // The values of a leaf of the expression (a tensor is defined: fused() checked it).
  template <class L>
  static const T* values_of(const L& leaf) {
    if constexpr (is_tensor_v<L>)
      return leaf.impl()->data();
    else
      return leaf.data();
  }
  template <class L>
  static std::size_t size_of(const L& leaf) {
    if constexpr (is_tensor_v<L>)
      return leaf.impl()->extents.size();
    else
      return leaf.extents().size();
  }

  template <int N = Eigen::Dynamic>
  static auto op_value(const E& e, std::size_t n) {
    using Op = typename E::op;
    if constexpr (is_unary_expr_v<E>)
      return Op::value(map<N>(values_of(e.x), n));
    else
      return Op::value(map<N>(values_of(e.lhs), n), map<N>(values_of(e.rhs), n));
  }

  // The output values, when the VJP reads them, are recomputed (once, not once per use):
  // into a register for one element, else into a buffer.
  template <int N = Eigen::Dynamic>
  static void backward_of_size(const E& e, std::size_t n, const T* grad_output, const tensor_sinks<T>& sinks) {
    using Op = typename E::op;
    const auto dy = map<N>(grad_output, n);
    if constexpr (!needs_output(Op::needs)) {
      add_operand_vjps<N>(e, n, dy, op_value<N>(e, n), sinks);  // y is never evaluated
    } else if constexpr (N == 1) {
      const Eigen::Array<T, 1, 1> y = op_value<1>(e, 1);
      add_operand_vjps<1>(e, 1, dy, y, sinks);
    } else {
      small_buffer<T> kept(n);
      map<N>(kept.data(), n) = op_value<N>(e, n);
      add_operand_vjps<N>(e, n, dy, map<N>(static_cast<const T*>(kept.data()), n), sinks);
    }
  }
  template <int N, class Dy, class Y>
  static void add_operand_vjps(const E& e, std::size_t n, const Dy& dy, const Y& y, const tensor_sinks<T>& sinks) {
    using Op = typename E::op;
    if constexpr (is_unary_expr_v<E>) {
      if (T* g = sinks.sink_for(e.x)) map<N>(g, n) += Op::vjp(dy, map<N>(values_of(e.x), n), y);
    } else {
      const auto a = map<N>(values_of(e.lhs), n);
      const auto b = map<N>(values_of(e.rhs), n);
      if (T* g = sinks.sink_for(e.lhs)) map<N>(g, n) += Op::vjp_lhs(dy, a, b, y);
      if (T* g = sinks.sink_for(e.rhs)) map<N>(g, n) += Op::vjp_rhs(dy, a, b, y);
    }
  }
};

}  // namespace fusegrad::detail
