// ops/sqrt.hpp -- element-wise sqrt and its vector-Jacobian product.
#pragma once

#include <string_view>
#include <type_traits>
#include <utility>

#include <fusegrad/detail/make_node.hpp>
#include <fusegrad/detail/vector_math.hpp>

namespace fusegrad {

/// Element-wise sqrt, correctly rounded on x86 (math::sqrt: Eigen's float registers there are not).
///   value: y = sqrt(x)
///   vjp:   dx = dy / (2 y)
struct sqrt_op {
  static constexpr std::string_view name = "sqrt";
  static constexpr std::string_view backward_name = "SqrtBackward";
  static constexpr vjp_needs needs = vjp_needs::output;
  static auto value(const auto& x) { return math::sqrt(x); }
  static auto vjp(const auto& dy, const auto& /*x*/, const auto& y) {
    using T = typename std::decay_t<decltype(dy)>::Scalar;
    return dy * (T(0.5) / y);
  }
};

/// Element-wise sqrt: y = sqrt(x).
[[nodiscard]] constexpr auto sqrt(Differentiable auto&& x) {
  return detail::make_unary<sqrt_op>(std::forward<decltype(x)>(x));
}
FUSEGRAD_DATA_OPERAND_OVERLOAD(sqrt)  // data (an Eigen object, a std::vector) in x's place: one error

}  // namespace fusegrad
