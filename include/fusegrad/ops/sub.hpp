// ops/sub.hpp -- element-wise sub with broadcasting, and its vector-Jacobian products.
#pragma once

#include <string_view>
#include <type_traits>
#include <utility>

#include <fusegrad/detail/make_node.hpp>
#include <fusegrad/detail/negated.hpp>

namespace fusegrad {

/// Element-wise sub; both VJPs are in the broadcast shape (the node reduces them).
///   value: y = a - b
///   vjp:   da = dy, db = -dy
struct sub_op {
  static constexpr std::string_view name = "sub";
  static constexpr std::string_view symbol = "-";
  static constexpr std::string_view backward_name = "SubBackward";
  static constexpr vjp_needs needs = vjp_needs::none;
  static auto value(const auto& a, const auto& b) { return a - b; }
  // dy passes through by reference, not copied (add_op says why)
  static const auto& vjp_lhs(const auto& dy, const auto& /*a*/, const auto& /*b*/, const auto& /*y*/) { return dy; }
  static auto vjp_rhs(const auto& dy, const auto& /*a*/, const auto& /*b*/, const auto& /*y*/) {
    return detail::negated(dy);
  }
};

/// `a - b` with NumPy broadcasting; either side may be a plain number.
template <class A, class B>
  requires BinaryOperands<A, B>
[[nodiscard]] constexpr auto operator-(A&& a, B&& b) {
  return detail::make_binary<sub_op>(std::forward<A>(a), std::forward<B>(b));
}
FUSEGRAD_DATA_OPERAND_OVERLOADS(operator-)  // data beside an expression: one error

}  // namespace fusegrad
