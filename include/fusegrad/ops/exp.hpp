// ops/exp.hpp -- element-wise exp and its vector-Jacobian product.
#pragma once

#include <string_view>
#include <type_traits>
#include <utility>

#include <fusegrad/detail/make_node.hpp>
#include <fusegrad/detail/vector_math.hpp>

namespace fusegrad {

/// Element-wise exp.
///   value: y = exp(x)
///   vjp:   dx = dy * y
struct exp_op {
  static constexpr std::string_view name = "exp";
  static constexpr std::string_view backward_name = "ExpBackward";
  static constexpr vjp_needs needs = vjp_needs::output;
  static auto value(const auto& x) { return math::exp(x); }
  static auto vjp(const auto& dy, const auto& /*x*/, const auto& y) { return dy * y; }
};

/// Element-wise exp: y = exp(x).
[[nodiscard]] constexpr auto exp(Differentiable auto&& x) {
  return detail::make_unary<exp_op>(std::forward<decltype(x)>(x));
}
FUSEGRAD_DATA_OPERAND_OVERLOAD(exp)  // data (an Eigen object, a std::vector) in x's place: one error

}  // namespace fusegrad
