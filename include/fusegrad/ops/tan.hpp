// ops/tan.hpp -- element-wise tan and its vector-Jacobian product.
#pragma once

#include <string_view>
#include <type_traits>
#include <utility>

#include <fusegrad/detail/make_node.hpp>
#include <fusegrad/detail/vector_math.hpp>

namespace fusegrad {

/// Element-wise tan.
///   value: y = tan(x)
///   vjp:   dx = dy * (1 + y^2)
struct tan_op {
  static constexpr std::string_view name = "tan";
  static constexpr std::string_view backward_name = "TanBackward";
  static constexpr vjp_needs needs = vjp_needs::output;
  static auto value(const auto& x) { return math::tan(x); }
  static auto vjp(const auto& dy, const auto& /*x*/, const auto& y) {
    using T = typename std::decay_t<decltype(dy)>::Scalar;
    return dy * (T(1) + y.square());
  }
};

/// Element-wise tan: y = tan(x).
[[nodiscard]] constexpr auto tan(Differentiable auto&& x) {
  return detail::make_unary<tan_op>(std::forward<decltype(x)>(x));
}
FUSEGRAD_DATA_OPERAND_OVERLOAD(tan)  // data (an Eigen object, a std::vector) in x's place: one error

}  // namespace fusegrad
