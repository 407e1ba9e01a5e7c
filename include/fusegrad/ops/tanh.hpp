// ops/tanh.hpp -- element-wise tanh and its vector-Jacobian product.
#pragma once

#include <string_view>
#include <type_traits>
#include <utility>

#include <fusegrad/detail/make_node.hpp>
#include <fusegrad/detail/vector_math.hpp>

namespace fusegrad {

/// Element-wise tanh.
///   value: y = tanh(x)
///   vjp:   dx = dy * (1 - y^2)
struct tanh_op {
  static constexpr std::string_view name = "tanh";
  static constexpr std::string_view backward_name = "TanhBackward";
  static constexpr vjp_needs needs = vjp_needs::output;
  static auto value(const auto& x) { return math::tanh(x); }
  static auto vjp(const auto& dy, const auto& /*x*/, const auto& y) {
    using T = typename std::decay_t<decltype(dy)>::Scalar;
    return dy * (T(1) - y.square());
  }
};

/// Element-wise tanh: y = tanh(x).
[[nodiscard]] constexpr auto tanh(Differentiable auto&& x) {
  return detail::make_unary<tanh_op>(std::forward<decltype(x)>(x));
}
FUSEGRAD_DATA_OPERAND_OVERLOAD(tanh)  // data (an Eigen object, a std::vector) in x's place: one error

}  // namespace fusegrad
