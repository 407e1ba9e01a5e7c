// ops/log.hpp -- element-wise log and its vector-Jacobian product.
#pragma once

#include <string_view>
#include <type_traits>
#include <utility>

#include <fusegrad/detail/make_node.hpp>
#include <fusegrad/detail/vector_math.hpp>

namespace fusegrad {

/// Element-wise log.
///   value: y = log(x)
///   vjp:   dx = dy / x
struct log_op {
  static constexpr std::string_view name = "log";
  static constexpr std::string_view backward_name = "LogBackward";
  static constexpr vjp_needs needs = vjp_needs::input;
  static auto value(const auto& x) { return math::log(x); }
  static auto vjp(const auto& dy, const auto& x, const auto& /*y*/) { return dy / x; }
};

/// Element-wise log: y = log(x).
[[nodiscard]] constexpr auto log(Differentiable auto&& x) {
  return detail::make_unary<log_op>(std::forward<decltype(x)>(x));
}
FUSEGRAD_DATA_OPERAND_OVERLOAD(log)  // data (an Eigen object, a std::vector) in x's place: one error

}  // namespace fusegrad
