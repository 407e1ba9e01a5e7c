// ops/minimum.hpp -- element-wise minimum with broadcasting, and its vector-Jacobian products.
#pragma once

#include <string_view>
#include <type_traits>
#include <utility>

#include <Eigen/Core>

#include <fusegrad/detail/elementwise_functor.hpp>
#include <fusegrad/detail/extremum_vjp.hpp>
#include <fusegrad/detail/make_node.hpp>

namespace fusegrad {

/// Element-wise minimum; both VJPs are in the broadcast shape (the node reduces them).
///   value: y = min(a, b)
///   vjp:   da = 0 where a > b, dy/2 where a == b, dy elsewhere (also where either is NaN, as PyTorch); db
///          likewise
struct minimum_op {
  static constexpr std::string_view name = "minimum";
  static constexpr std::string_view symbol = "min";
  static constexpr std::string_view backward_name = "MinimumBackward";
  static constexpr vjp_needs needs = vjp_needs::input;
  static constexpr bool analytic = false;  // a kink: the complex step does not apply (check/gradcheck.hpp)
  // NaN in either operand gives NaN, as in PyTorch; Eigen's plain max and min may drop it.
  static auto value(const auto& a, const auto& b) {
    using T = typename std::decay_t<decltype(a)>::Scalar;
    return a.binaryExpr(b, Eigen::internal::scalar_min_op<T, T, Eigen::PropagateNaN>());
  }
  static auto vjp_lhs(const auto& dy, const auto& a, const auto& b, const auto& /*y*/) {
    using T = typename std::decay_t<decltype(dy)>::Scalar;
    return detail::ternary_expr(dy, a, b, detail::extremum_vjp<T, false>());
  }
  static auto vjp_rhs(const auto& dy, const auto& a, const auto& b, const auto& /*y*/) {
    using T = typename std::decay_t<decltype(dy)>::Scalar;
    return detail::ternary_expr(dy, b, a, detail::extremum_vjp<T, false>());
  }
};

/// Element-wise minimum(a, b) with NumPy broadcasting; either side may be a plain number.
template <class A, class B>
  requires BinaryOperands<A, B>
[[nodiscard]] constexpr auto minimum(A&& a, B&& b) {
  return detail::make_binary<minimum_op>(std::forward<A>(a), std::forward<B>(b));
}
FUSEGRAD_DATA_OPERAND_OVERLOADS(minimum)  // data beside an expression: one error

}  // namespace fusegrad
