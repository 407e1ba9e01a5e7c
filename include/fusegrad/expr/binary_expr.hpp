// expr/binary_expr.hpp -- binary_expr<Op, L, R>: one element-wise node with NumPy broadcasting.
#pragma once

#include <type_traits>

#include <fusegrad/concepts.hpp>
#include <fusegrad/expr/backward_of_expression.hpp>
#include <fusegrad/expr/closure.hpp>
#include <fusegrad/expr/common_value_type.hpp>
#include <fusegrad/shape/broadcast.hpp>

namespace fusegrad {

namespace detail {
// Whether E's extents() only reads extents (of leaves, or static ones): no materialised node below it checks its
// operands there, so a caller that needs no result of it may skip the call. A walk over the children, defined with
// the other walks in expr/visit.hpp (expr/children.hpp, which it reads, includes this header).
template <class E>
constexpr bool extents_only_read();

// Whether E's extents are its static shape with nothing left to compare at run time: a dyn extent that yields to a
// static one in a broadcast (Shape<3> + Shape<dyn> is a Shape<3>) is compared when extents() runs. Also in visit.hpp.
template <class E>
constexpr bool extents_fixed_statically();
}  // namespace detail

/// The node `lhs Op rhs`. Its static shape is broadcast_t of the operands' (a mismatch is a
/// compile error naming both); run-time extents are broadcast, or throw shape_error.
template <BinaryOp Op, class L, class R>
struct binary_expr {
  using op = Op;
  using lhs_type = detail::node_t<L>;
  using rhs_type = detail::node_t<R>;
  using value_type = detail::common_value_type_t<typename lhs_type::value_type, typename rhs_type::value_type>;
  using static_shape = common_shape_t<typename lhs_type::static_shape, typename rhs_type::static_shape>;
  static constexpr node_kind kind = node_kind::elementwise;
  static constexpr bool takes_grad = is_differentiable_op_v<Op> && (lhs_type::takes_grad || rhs_type::takes_grad);

  L lhs;
  R rhs;

  /// Not recorded, so no backward(): a compile error that says what to write instead.
  template <class... A>
  void backward(A&&...) const {
    detail::backward_of_expression<A...>();
  }

  // By reference where they are one operand's and it holds them (a leaf of run-time shape): no copy of 80 bytes. A
  // temporary expression gives a copy, which outlives it.
  [[nodiscard]] Extents extents() const&& { return static_cast<const binary_expr&>(*this).extents(); }
  [[nodiscard]] decltype(auto) extents() const& {
    // Known at compile time only when both operands are, down to their leaves: a dyn operand
    // beside a static one, here or below, must still be checked against it at run time.
    if constexpr (detail::extents_fixed_statically<lhs_type>() && detail::extents_fixed_statically<rhs_type>()) {
      return Extents::of<static_shape>();
    } else if constexpr (std::is_same_v<typename lhs_type::static_shape, Shape<>> &&
                         detail::extents_only_read<lhs_type>()) {
      return rhs.extents();  // one value broadcasts to every shape
    } else if constexpr (std::is_same_v<typename rhs_type::static_shape, Shape<>> &&
                         detail::extents_only_read<rhs_type>()) {
      return lhs.extents();
    } else {
      return broadcast(lhs.extents(), rhs.extents());
    }
  }
};

}  // namespace fusegrad
