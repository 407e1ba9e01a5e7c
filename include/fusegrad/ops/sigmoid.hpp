// ops/sigmoid.hpp -- element-wise sigmoid and its vector-Jacobian product.
#pragma once

#include <string_view>
#include <type_traits>
#include <utility>

#include <fusegrad/detail/make_node.hpp>

namespace fusegrad {

/// Element-wise sigmoid.
///   value: y = 1 / (1 + exp(-x))
///   vjp:   dx = dy * y * (1 - y)
struct sigmoid_op {
  static constexpr std::string_view name = "sigmoid";
  static constexpr std::string_view backward_name = "SigmoidBackward";
  static constexpr vjp_needs needs = vjp_needs::output;
  static auto value(const auto& x) { return x.logistic(); }
  static auto vjp(const auto& dy, const auto& /*x*/, const auto& y) {
    using T = typename std::decay_t<decltype(dy)>::Scalar;
    return dy * (y * (T(1) - y));
  }
};

/// Element-wise sigmoid: y = 1 / (1 + exp(-x)).
[[nodiscard]] constexpr auto sigmoid(Differentiable auto&& x) {
  return detail::make_unary<sigmoid_op>(std::forward<decltype(x)>(x));
}

}  // namespace fusegrad
