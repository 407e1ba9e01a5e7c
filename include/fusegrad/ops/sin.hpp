// ops/sin.hpp -- element-wise sin and its vector-Jacobian product.
#pragma once

#include <string_view>
#include <type_traits>
#include <utility>

#include <fusegrad/detail/make_node.hpp>
#include <fusegrad/detail/vector_math.hpp>

namespace fusegrad {

/// Element-wise sin.
///   value: y = sin(x)
///   vjp:   dx = dy * cos(x)
struct sin_op {
  static constexpr std::string_view name = "sin";
  static constexpr std::string_view backward_name = "SinBackward";
  static constexpr vjp_needs needs = vjp_needs::input;
  static auto value(const auto& x) { return math::sin(x); }
  static auto vjp(const auto& dy, const auto& x, const auto& /*y*/) { return dy * math::cos(x); }
  // Where sin and cos share their argument reduction, a sweep that runs both directions, and a taped sin node,
  // take the value together with the slope dy/dx = cos(x) that the VJP multiplies dy by (TakesValueWithSlope).
  template <class T>
  static constexpr bool value_with_slope = math::sin_cos_together_v<T>;
  static void value_and_slope(const auto& x, auto& y, auto& slope) { math::sin_cos(x, y, slope); }
};

/// Element-wise sin: y = sin(x).
[[nodiscard]] constexpr auto sin(Differentiable auto&& x) {
  return detail::make_unary<sin_op>(std::forward<decltype(x)>(x));
}
FUSEGRAD_DATA_OPERAND_OVERLOAD(sin)  // data (an Eigen object, a std::vector) in x's place: one error

}  // namespace fusegrad
