// ops/reciprocal.hpp -- element-wise reciprocal and its vector-Jacobian product.
#pragma once

#include <string_view>
#include <type_traits>
#include <utility>

#include <fusegrad/detail/make_node.hpp>
#include <fusegrad/detail/negated.hpp>

namespace fusegrad {

/// Element-wise reciprocal.
///   value: y = 1 / x
///   vjp:   dx = -dy * y^2, formed as -(dy * y) * y: y^2 alone overflows or underflows where the
///          gradient does not (dy = 1e250, y = 1e-200)
struct reciprocal_op {
  static constexpr std::string_view name = "reciprocal";
  static constexpr std::string_view backward_name = "ReciprocalBackward";
  static constexpr vjp_needs needs = vjp_needs::output;
  static auto value(const auto& x) { return x.inverse(); }
  static auto vjp(const auto& dy, const auto& /*x*/, const auto& y) { return detail::negated(dy * y) * y; }
};

/// Element-wise reciprocal: y = 1 / x.
[[nodiscard]] constexpr auto reciprocal(Differentiable auto&& x) {
  return detail::make_unary<reciprocal_op>(std::forward<decltype(x)>(x));
}
FUSEGRAD_DATA_OPERAND_OVERLOAD(reciprocal)  // data (an Eigen object, a std::vector) in x's place: one error

}  // namespace fusegrad
