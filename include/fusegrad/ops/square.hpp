// ops/square.hpp -- element-wise square and its vector-Jacobian product.
#pragma once

#include <string_view>
#include <type_traits>
#include <utility>

#include <fusegrad/detail/make_node.hpp>

namespace fusegrad {

/// Element-wise square.
///   value: y = x^2
///   vjp:   dx = 2 x dy
struct square_op {
  static constexpr std::string_view name = "square";
  static constexpr std::string_view backward_name = "PowBackward";
  static constexpr vjp_needs needs = vjp_needs::input;
  static auto value(const auto& x) { return x.square(); }
  static auto vjp(const auto& dy, const auto& x, const auto& /*y*/) {
    using T = typename std::decay_t<decltype(dy)>::Scalar;
    return (dy * T(2)) * x;  // 2 dy is loop-invariant when dy is one value repeated (below a sum)
  }
};

/// Element-wise square: y = x^2.
[[nodiscard]] constexpr auto square(Differentiable auto&& x) {
  return detail::make_unary<square_op>(std::forward<decltype(x)>(x));
}
FUSEGRAD_DATA_OPERAND_OVERLOAD(square)  // data (an Eigen object, a std::vector) in x's place: one error

}  // namespace fusegrad
