// ops/pow.hpp -- element-wise pow with broadcasting, and its vector-Jacobian products.
#pragma once

#include <string_view>
#include <type_traits>
#include <utility>

#include <fusegrad/detail/make_node.hpp>

namespace fusegrad {

/// Element-wise pow; both VJPs are in the broadcast shape (the node reduces them).
///   value: y = a^b
///   vjp:   da = dy * b * a^(b-1), db = dy * y * log(a)
struct pow_op {
  static constexpr std::string_view name = "pow";
  static constexpr std::string_view symbol = "**";
  static constexpr std::string_view backward_name = "PowBackward";
  static constexpr vjp_needs needs = vjp_needs::input_and_output;
  static auto value(const auto& a, const auto& b) { return a.pow(b); }
  static auto vjp_lhs(const auto& dy, const auto& a, const auto& b, const auto& /*y*/) {
    using T = typename std::decay_t<decltype(dy)>::Scalar;
    return dy * b * a.pow(b - T(1));
  }
  static auto vjp_rhs(const auto& dy, const auto& a, const auto& /*b*/, const auto& y) { return dy * y * a.log(); }
};
static_assert(BinaryOp<pow_op>);

/// Element-wise pow(a, b) with NumPy broadcasting; either side may be a plain number.
template <class A, class B>
  requires BinaryOperands<A, B>
[[nodiscard]] constexpr auto pow(A&& a, B&& b) {
  return detail::make_binary<pow_op>(std::forward<A>(a), std::forward<B>(b));
}

}  // namespace fusegrad
