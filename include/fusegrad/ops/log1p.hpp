// ops/log1p.hpp -- element-wise log1p and its vector-Jacobian product.
#pragma once

#include <string_view>
#include <type_traits>
#include <utility>

#include <fusegrad/detail/make_node.hpp>
#include <fusegrad/detail/vector_math.hpp>

namespace fusegrad {

/// Element-wise log1p.
///   value: y = log(1 + x)
///   vjp:   dx = dy / (1 + x)
struct log1p_op {
  static constexpr std::string_view name = "log1p";
  static constexpr std::string_view backward_name = "Log1pBackward";
  static constexpr vjp_needs needs = vjp_needs::input;
  static auto value(const auto& x) { return math::log1p(x); }
  static auto vjp(const auto& dy, const auto& x, const auto& /*y*/) {
    using T = typename std::decay_t<decltype(dy)>::Scalar;
    return dy / (x + T(1));
  }
};

/// Element-wise log1p: y = log(1 + x).
[[nodiscard]] constexpr auto log1p(Differentiable auto&& x) {
  return detail::make_unary<log1p_op>(std::forward<decltype(x)>(x));
}
FUSEGRAD_DATA_OPERAND_OVERLOAD(log1p)  // data (an Eigen object, a std::vector) in x's place: one error

}  // namespace fusegrad
