// ops/log_sigmoid.hpp -- element-wise log(sigmoid(x)) without overflow, and its vector-Jacobian product.
#pragma once

#include <string_view>
#include <type_traits>
#include <utility>

#include <fusegrad/detail/make_node.hpp>
#include <fusegrad/detail/vector_math.hpp>

namespace fusegrad {

/// Element-wise log of the sigmoid (PyTorch's logsigmoid): the log-likelihood of a logistic
/// model. It is softplus mirrored, log(sigmoid(x)) = -softplus(-x), and takes softplus's
/// overflow-free form.
///   value: y = -softplus(-x) = min(x, 0) - log1p(exp(-|x|))
///   vjp:   dx = dy * sigmoid(-x) = dy * -expm1(y)   (softplus's slope, mirrored)
/// At x = -1000 the value is -1000 and the gradient 1; at x = 1000, 0 and 0.
struct log_sigmoid_op {
  static constexpr std::string_view name = "log_sigmoid";
  static constexpr std::string_view backward_name = "LogSigmoidBackward";
  static constexpr vjp_needs needs = vjp_needs::output;
  static constexpr bool analytic = false;  // real only: its overflow-free form uses |x| and min
  // PyTorch's form: at x = +inf, +0 (the mirrored softplus would give -0).
  static auto value(const auto& x) {
    using T = typename std::decay_t<decltype(x)>::Scalar;
    static_assert(std::is_floating_point_v<T>,
                  "fusegrad::log_sigmoid: real scalars only (its overflow-free form uses |x| and min, which have no "
                  "complex derivative)");
    return x.min(T(0)) - math::log1p(math::exp(-x.abs()));
  }
  // 0 - expm1(y), not -expm1(y): +0 at y = +0 (x = +inf) in every lane, as PyTorch's sigmoid(-x).
  static auto vjp(const auto& dy, const auto& /*x*/, const auto& y) {
    using T = typename std::decay_t<decltype(y)>::Scalar;
    return dy * (T(0) - math::expm1(y));
  }
};

/// Element-wise log(sigmoid(x)), finite for every finite x.
[[nodiscard]] constexpr auto log_sigmoid(Differentiable auto&& x) {
  return detail::make_unary<log_sigmoid_op>(std::forward<decltype(x)>(x));
}
FUSEGRAD_DATA_OPERAND_OVERLOAD(log_sigmoid)  // data (an Eigen object, a std::vector) in x's place: one error

}  // namespace fusegrad
