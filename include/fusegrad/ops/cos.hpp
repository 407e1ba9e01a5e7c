// ops/cos.hpp -- element-wise cos and its vector-Jacobian product.
#pragma once

#include <string_view>
#include <type_traits>
#include <utility>

#include <fusegrad/detail/make_node.hpp>
#include <fusegrad/detail/negated.hpp>
#include <fusegrad/detail/vector_math.hpp>

namespace fusegrad {

/// Element-wise cos.
///   value: y = cos(x)
///   vjp:   dx = -dy * sin(x)
struct cos_op {
  static constexpr std::string_view name = "cos";
  static constexpr std::string_view backward_name = "CosBackward";
  static constexpr vjp_needs needs = vjp_needs::input;
  static auto value(const auto& x) { return math::cos(x); }
  static auto vjp(const auto& dy, const auto& x, const auto& /*y*/) { return detail::negated(dy) * math::sin(x); }
  // As sin_op's: the value with the slope dy/dx = -sin(x), from one argument reduction.
  template <class T>
  static constexpr bool value_with_slope = math::sin_cos_together_v<T>;
  static void value_and_slope(const auto& x, auto& y, auto& slope) {
    math::sin_cos(x, slope, y);
    slope = -slope;
  }
};

/// Element-wise cos: y = cos(x).
[[nodiscard]] constexpr auto cos(Differentiable auto&& x) {
  return detail::make_unary<cos_op>(std::forward<decltype(x)>(x));
}
FUSEGRAD_DATA_OPERAND_OVERLOAD(cos)  // data (an Eigen object, a std::vector) in x's place: one error

}  // namespace fusegrad
