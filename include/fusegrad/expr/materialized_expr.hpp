// expr/materialized_expr.hpp -- materialized_expr<Op, Xs...>: a node that computes a whole array
// (reductions, matmul, transpose), generic over its op spec.
#pragma once

#include <array>
#include <concepts>
#include <cstddef>
#include <utility>

#include <boost/mp11/algorithm.hpp>
#include <boost/mp11/list.hpp>
#include <tuple>

#include <fusegrad/concepts.hpp>
#include <fusegrad/expr/backward_of_expression.hpp>
#include <fusegrad/expr/closure.hpp>
#include <fusegrad/expr/common_value_type.hpp>

namespace fusegrad {

/// The inputs of a materialised op as contiguous row-major arrays with their extents.
/// Both layers call the op through this one view: the fused sweep on its buffers, the
/// tape on Tensor storage.
template <class T, std::size_t N>
struct operands {
  std::array<const T*, N> values;
  std::array<Extents, N> extents;
};

namespace detail {
// The calls a materialised op spec of `arity` operands answers, checked with double.
template <class Op, std::size_t... I>
constexpr bool has_materialized_calls(std::index_sequence<I...>) {
  return requires(const Op& op, double* out, const double* dy, const operands<double, sizeof...(I)>& in,
                  const Extents& e) {
    op.result_extents((static_cast<void>(I), e)...);
    op.value(out, in);
    (op.template vjp<I>(out, dy, in, dy), ...);
  };
}
}  // namespace detail

/// A materialised op spec: as every op spec, a name, a backward name and what its VJP reads;
/// `arity`, its operand count; `result_shape<S...>`, its static result shape (a compile
/// error names mismatched shapes); `result_extents(e...)`, the same at run time (throws);
/// `value(y, in)`, its value written into an output array; and per operand I,
/// `vjp<I>(dx, dy, in, y)`, that operand's gradient written into dx (`=`, not `+=`).
/// See ops/sum.hpp and ops/matmul.hpp. The three calls are made on the op object the node
/// holds: most ops make them static, an op with run-time parameters (a reshape's extents,
/// a slice's bounds) reads its members (ops/reshape.hpp).
template <class Op>
concept MaterializedOp = OpSpec<Op> && std::copy_constructible<Op> && requires {
  { Op::arity } -> std::convertible_to<std::size_t>;
} && detail::has_materialized_calls<Op>(std::make_index_sequence<Op::arity>{});

/// A materialised op that also computes every operand's gradient in one call, where the gradients share work
/// (einsum's intermediate products): `vjp_all(dx, dy, in, y)` writes operand I's gradient into dx[I] (`=`), for
/// every I whose dx[I] is not null. Both layers then call it instead of each vjp<I>.
template <class Op>
concept JointVjp = MaterializedOp<Op> && requires(const Op& op, const std::array<double*, Op::arity>& dx,
                                                  const double* dy, const operands<double, Op::arity>& in) {
  op.vjp_all(dx, dy, in, dy);
};

/// A JointVjp op whose value computes intermediate results its VJPs read again (einsum's products of operand
/// pairs): `saved_type<T>`, default-constructible, where `value(y, in, &saved)` keeps them and
/// `vjp_all(dx, dy, in, y, &saved)` takes them. A layer passes the same object to both where it can: the static
/// layer within its sweep, a tape node whose root is the op and whose operands are tensors from recording to its
/// first backward. Given none, or one that no value() filled, vjp_all computes what it needs. What it saves may point
/// into the operands' values, never into `y`, which the tape writes through a buffer of the sweep's own.
template <class Op>
concept SavesForBackward = JointVjp<Op> && std::default_initializable<typename Op::template saved_type<double>> &&
    requires(const Op& op, typename Op::template saved_type<double>& saved, double* y,
             const std::array<double*, Op::arity>& dx, const double* dy, const operands<double, Op::arity>& in) {
  op.value(y, in, &saved);
  op.vjp_all(dx, dy, in, dy, &saved);
};

/// An op whose result is `sum(x) / divisor(n)` over all n elements (sum, mean): its operand's
/// segment is reduced block by block inside the fused loop, never materialised.
template <class Op>
concept LinearFullReduction = MaterializedOp<Op> && requires {
  requires Op::reduces_all_linearly;
  { Op::template divisor<double>(std::size_t{}) } -> std::same_as<double>;
};

/// The node `Op(xs...)` of a static expression whose value is a whole array. The op's
/// result_shape checks static shapes (a compile error names them); extents() checks run-time ones.
template <MaterializedOp Op, class... Xs>
struct materialized_expr {
  using op = Op;
  static_assert(sizeof...(Xs) == Op::arity, "fusegrad: wrong number of operands for this operation");
  using operand_types = boost::mp11::mp_list<detail::node_t<Xs>...>;
  using value_type = detail::common_value_type_t<typename detail::node_t<Xs>::value_type...>;
  using static_shape = typename Op::template result_shape<typename detail::node_t<Xs>::static_shape...>;
  static constexpr node_kind kind = node_kind::materialized;
  static constexpr bool takes_grad = is_differentiable_op_v<Op> && (detail::node_t<Xs>::takes_grad || ...);

  std::tuple<Xs...> args;           // std::tuple: operands may be references (closure rule)
  [[no_unique_address]] Op spec{};  // the op spec: its run-time parameters, if it has any

  /// Not recorded, so no backward(): a compile error that says what to write instead.
  template <class... A>
  void backward(A&&...) const {
    detail::backward_of_expression<A...>();
  }

  [[nodiscard]] Extents extents() const {
    return std::apply([this](const auto&... x) { return spec.result_extents(x.extents()...); }, args);
  }
};

}  // namespace fusegrad
