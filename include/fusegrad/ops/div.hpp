// ops/div.hpp -- element-wise div with broadcasting, and its vector-Jacobian products.
#pragma once

#include <string_view>
#include <type_traits>
#include <utility>

#include <fusegrad/detail/make_node.hpp>
#include <fusegrad/detail/negated.hpp>
#include <fusegrad/ops/mul.hpp>
#include <fusegrad/ops/reciprocal.hpp>

namespace fusegrad {

/// Element-wise div; both VJPs are in the broadcast shape (the node reduces them).
///   value: y = a / b
///   vjp:   da = dy / b, db = -dy * y / b
struct div_op {
  static constexpr std::string_view name = "div";
  static constexpr std::string_view symbol = "/";
  static constexpr std::string_view backward_name = "DivBackward";
  static constexpr vjp_needs needs = vjp_needs::input_and_output;
  static auto value(const auto& a, const auto& b) { return a / b; }
  static auto vjp_lhs(const auto& dy, const auto& /*a*/, const auto& b, const auto& /*y*/) { return dy / b; }
  static auto vjp_rhs(const auto& dy, const auto& /*a*/, const auto& b, const auto& y) {
    return detail::negated(dy) * y / b;
  }
};

namespace detail {
// Whether b is a node of one value (Shape<>, Shape<1>, ...) while a is not: then a / b is a * (1 / b).
template <class A, class B>
constexpr bool divides_by_uniform() {
  if constexpr (Number<A> || Number<B>) {
    return false;
  } else {
    return static_size_v<typename std::remove_cvref_t<B>::static_shape> == 1 &&
           static_size_v<typename std::remove_cvref_t<A>::static_shape> != 1;
  }
}
}  // namespace detail

/// `a / b` with NumPy broadcasting; either side may be a plain number, which divides as PyTorch's
/// CPU kernels do. A b whose static shape holds one value (a `Var<T, Shape<>>`, such as a scale
/// parameter) multiplies by its reciprocal instead: 1 / b is computed once per sweep (b is
/// loop-invariant), not a division per element in the value and in the gradient. Values then
/// agree with true division to an ulp or two (b's gradient, -(sum dy a) / b^2, is formed as
/// -((sum dy a) r) r with r = 1 / b, so r^2 alone never overflows or vanishes, though the sum
/// sum dy a still may where PyTorch's terms dy a / b do not); a b so small that 1 / b overflows
/// (|b| < 2^-1024 for double, 2^-128 for float: subnormal) gives infinities, and NaN for a = 0 (0 times
/// infinity), where true division would not, and one so large that 1 / b is subnormal (|b| > 2^1022) loses its last
/// digits.
template <class A, class B>
  requires BinaryOperands<A, B>
[[nodiscard]] constexpr auto operator/(A&& a, B&& b) {
  if constexpr (detail::divides_by_uniform<A, B>())
    return detail::make_binary<mul_op>(std::forward<A>(a), reciprocal(std::forward<B>(b)));
  else
    return detail::make_binary<div_op>(std::forward<A>(a), std::forward<B>(b));
}
FUSEGRAD_DATA_OPERAND_OVERLOADS(operator/)  // data beside an expression: one error

}  // namespace fusegrad
