// ops/expm1.hpp -- element-wise expm1 and its vector-Jacobian product.
#pragma once

#include <string_view>
#include <type_traits>
#include <utility>

#include <fusegrad/detail/make_node.hpp>
#include <fusegrad/detail/vector_math.hpp>

namespace fusegrad {

/// Element-wise expm1.
///   value: y = exp(x) - 1
///   vjp:   dx = dy * (y + 1)
struct expm1_op {
  static constexpr std::string_view name = "expm1";
  static constexpr std::string_view backward_name = "Expm1Backward";
  static constexpr vjp_needs needs = vjp_needs::output;
  static auto value(const auto& x) { return math::expm1(x); }
  static auto vjp(const auto& dy, const auto& /*x*/, const auto& y) {
    using T = typename std::decay_t<decltype(dy)>::Scalar;
    return dy * (y + T(1));
  }
};

/// Element-wise expm1: y = exp(x) - 1.
[[nodiscard]] constexpr auto expm1(Differentiable auto&& x) {
  return detail::make_unary<expm1_op>(std::forward<decltype(x)>(x));
}
FUSEGRAD_DATA_OPERAND_OVERLOAD(expm1)  // data (an Eigen object, a std::vector) in x's place: one error

}  // namespace fusegrad
