// ops/log_sigmoid.hpp -- element-wise log(sigmoid(x)) without overflow, and its vector-Jacobian product.
#pragma once

#include <string_view>
#include <type_traits>
#include <utility>

#include <fusegrad/detail/make_node.hpp>

namespace fusegrad {

/// Element-wise log of the sigmoid (PyTorch's logsigmoid), computed in a form that never
/// overflows: the log-likelihood of a logistic model.
///   value: y = log(1 / (1 + exp(-x))) = min(x, 0) - log1p(exp(-|x|))
///   vjp:   dx = dy * sigmoid(-x)
/// At x = -1000 the value is -1000 and the gradient 1; at x = 1000, 0 and 0.
struct log_sigmoid_op {
  static constexpr std::string_view name = "log_sigmoid";
  static constexpr std::string_view backward_name = "LogSigmoidBackward";
  static constexpr vjp_needs needs = vjp_needs::input;
  static auto value(const auto& x) {
    using T = typename std::decay_t<decltype(x)>::Scalar;
    static_assert(std::is_floating_point_v<T>,
                  "fusegrad::log_sigmoid: real scalars only (its overflow-free form uses |x| and min, which have "
                  "no complex derivative)");
    return x.min(T(0)) - (-x.abs()).exp().log1p();
  }
  static auto vjp(const auto& dy, const auto& x, const auto& /*y*/) { return dy * (-x).logistic(); }
};
static_assert(UnaryOp<log_sigmoid_op>);

/// Element-wise log(sigmoid(x)), finite for every finite x.
[[nodiscard]] constexpr auto log_sigmoid(Differentiable auto&& x) {
  return detail::make_unary<log_sigmoid_op>(std::forward<decltype(x)>(x));
}

}  // namespace fusegrad
