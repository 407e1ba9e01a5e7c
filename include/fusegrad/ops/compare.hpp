// ops/compare.hpp -- element-wise comparisons: masks of 1 and 0, through which no gradient flows.
#pragma once

#include <string_view>
#include <type_traits>
#include <utility>

#include <Eigen/Core>

#include <fusegrad/detail/elementwise_functor.hpp>
#include <fusegrad/detail/make_node.hpp>

namespace fusegrad {

namespace detail {
// Where Compare holds, as 1 and 0 in T: Compare::holds on one pair of values, Compare::mask on registers (all ones
// where it holds).
template <class Compare, class T>
struct comparison_mask : elementwise_functor<T> {
  T operator()(T a, T b) const { return Compare::holds(a, b) ? T(1) : T(0); }
  template <class Packet>
  Packet packetOp(const Packet& a, const Packet& b) const {
    return Eigen::internal::pand(Compare::mask(a, b), Eigen::internal::pset1<Packet>(T(1)));
  }
};

// A comparison: its value is 1 where it holds and 0 elsewhere, in the operands' scalar type
// (a mask that multiplies, or selects with fg::where). It takes no gradient (PyTorch's
// comparisons give a bool tensor that requires none); its VJPs are zero for completeness.
template <class Compare>
struct comparison_op {
  static constexpr vjp_needs needs = vjp_needs::none;
  static constexpr bool differentiable = false;
  static constexpr bool analytic = false;  // a step: the complex step does not apply
  static constexpr std::string_view header = "compare";
  static auto value(const auto& a, const auto& b) {
    using T = typename std::decay_t<decltype(a)>::Scalar;
    return a.binaryExpr(b, comparison_mask<Compare, T>());
  }
  static auto vjp_lhs(const auto& dy, const auto& /*a*/, const auto& /*b*/, const auto& /*y*/) { return zero(dy); }
  static auto vjp_rhs(const auto& dy, const auto& /*a*/, const auto& /*b*/, const auto& /*y*/) { return zero(dy); }

 private:
  static auto zero(const auto& dy) {
    using plain = typename std::decay_t<decltype(dy)>::PlainObject;
    return plain::Zero(dy.rows(), dy.cols());
  }
};
}  // namespace detail

/// a < b, as 1 or 0.
struct less_op : detail::comparison_op<less_op> {
  static constexpr std::string_view name = "lt";
  static constexpr std::string_view symbol = "<";
  static constexpr std::string_view backward_name = "LtBackward";
  static bool holds(const auto& a, const auto& b) { return a < b; }
  template <class Packet>
  static Packet mask(const Packet& a, const Packet& b) {
    return Eigen::internal::pcmp_lt(a, b);
  }
};
/// a <= b, as 1 or 0.
struct less_equal_op : detail::comparison_op<less_equal_op> {
  static constexpr std::string_view name = "le";
  static constexpr std::string_view symbol = "<=";
  static constexpr std::string_view backward_name = "LeBackward";
  static bool holds(const auto& a, const auto& b) { return a <= b; }
  template <class Packet>
  static Packet mask(const Packet& a, const Packet& b) {
    return Eigen::internal::pcmp_le(a, b);
  }
};
/// a > b, as 1 or 0.
struct greater_op : detail::comparison_op<greater_op> {
  static constexpr std::string_view name = "gt";
  static constexpr std::string_view symbol = ">";
  static constexpr std::string_view backward_name = "GtBackward";
  static bool holds(const auto& a, const auto& b) { return a > b; }
  template <class Packet>
  static Packet mask(const Packet& a, const Packet& b) {
    return Eigen::internal::pcmp_lt(b, a);
  }
};
/// a >= b, as 1 or 0.
struct greater_equal_op : detail::comparison_op<greater_equal_op> {
  static constexpr std::string_view name = "ge";
  static constexpr std::string_view symbol = ">=";
  static constexpr std::string_view backward_name = "GeBackward";
  static bool holds(const auto& a, const auto& b) { return a >= b; }
  template <class Packet>
  static Packet mask(const Packet& a, const Packet& b) {
    return Eigen::internal::pcmp_le(b, a);
  }
};
/// a == b, as 1 or 0.
struct equal_op : detail::comparison_op<equal_op> {
  static constexpr std::string_view name = "eq";
  static constexpr std::string_view symbol = "==";
  static constexpr std::string_view backward_name = "EqBackward";
  static bool holds(const auto& a, const auto& b) { return a == b; }
  template <class Packet>
  static Packet mask(const Packet& a, const Packet& b) {
    return Eigen::internal::pcmp_eq(a, b);
  }
};
/// a != b, as 1 or 0.
struct not_equal_op : detail::comparison_op<not_equal_op> {
  static constexpr std::string_view name = "ne";
  static constexpr std::string_view symbol = "!=";
  static constexpr std::string_view backward_name = "NeBackward";
  static bool holds(const auto& a, const auto& b) { return a != b; }
  template <class Packet>
  static Packet mask(const Packet& a, const Packet& b) {
    return Eigen::internal::pandnot(Eigen::internal::ptrue(a), Eigen::internal::pcmp_eq(a, b));
  }
};

/// `a < b`, `a <= b`, `a > b`, `a >= b`: masks of 1 and 0 with NumPy broadcasting, either side
/// a plain number; no gradient flows through them. Equality is `fg::eq(a, b)` and `fg::ne(a,
/// b)`: `==` on tensors would read as comparing handles.
template <class A, class B>
  requires BinaryOperands<A, B>
[[nodiscard]] constexpr auto operator<(A&& a, B&& b) {
  return detail::make_binary<less_op>(std::forward<A>(a), std::forward<B>(b));
}
FUSEGRAD_DATA_OPERAND_OVERLOADS(operator<)  // data beside an expression: one error
template <class A, class B>
  requires BinaryOperands<A, B>
[[nodiscard]] constexpr auto operator<=(A&& a, B&& b) {
  return detail::make_binary<less_equal_op>(std::forward<A>(a), std::forward<B>(b));
}
FUSEGRAD_DATA_OPERAND_OVERLOADS(operator<=)  // data beside an expression: one error
template <class A, class B>
  requires BinaryOperands<A, B>
[[nodiscard]] constexpr auto operator>(A&& a, B&& b) {
  return detail::make_binary<greater_op>(std::forward<A>(a), std::forward<B>(b));
}
FUSEGRAD_DATA_OPERAND_OVERLOADS(operator>)  // data beside an expression: one error
template <class A, class B>
  requires BinaryOperands<A, B>
[[nodiscard]] constexpr auto operator>=(A&& a, B&& b) {
  return detail::make_binary<greater_equal_op>(std::forward<A>(a), std::forward<B>(b));
}
FUSEGRAD_DATA_OPERAND_OVERLOADS(operator>=)  // data beside an expression: one error
template <class A, class B>
  requires BinaryOperands<A, B>
[[nodiscard]] constexpr auto eq(A&& a, B&& b) {
  return detail::make_binary<equal_op>(std::forward<A>(a), std::forward<B>(b));
}
FUSEGRAD_DATA_OPERAND_OVERLOADS(eq)  // data beside an expression: one error
template <class A, class B>
  requires BinaryOperands<A, B>
[[nodiscard]] constexpr auto ne(A&& a, B&& b) {
  return detail::make_binary<not_equal_op>(std::forward<A>(a), std::forward<B>(b));
}
FUSEGRAD_DATA_OPERAND_OVERLOADS(ne)  // data beside an expression: one error

}  // namespace fusegrad
