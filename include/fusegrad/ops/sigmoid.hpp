// ops/sigmoid.hpp -- element-wise sigmoid and its vector-Jacobian product.
#pragma once

#include <string_view>
#include <type_traits>
#include <utility>

#include <fusegrad/detail/make_node.hpp>
#include <fusegrad/detail/vector_math.hpp>

namespace fusegrad {

/// Element-wise sigmoid.
///   value: y = 1 / (1 + exp(-x))
///   vjp:   dx = dy * y * (1 - y)
struct sigmoid_op {
  static constexpr std::string_view name = "sigmoid";
  static constexpr std::string_view backward_name = "SigmoidBackward";
  static constexpr vjp_needs needs = vjp_needs::output;
  static auto value(const auto& x) {
    using T = typename std::decay_t<decltype(x)>::Scalar;
    // Eigen 3.4's logistic of float is an approximation of its own: e^x below about -9 (4.5e-5 too large at x = -10)
    // and 1 from about 15.7, where 1 / (1 + e^-x), PyTorch's, gives 4.53979e-5 and 0.99999988 (and the gradient
    // 1.2e-7, not 0). Its logistic of double is 1 / (1 + e^-x).
    if constexpr (std::is_same_v<T, float>)
      return T(1) / (T(1) + math::exp(-x));
    else
      return x.logistic();
  }
  static auto vjp(const auto& dy, const auto& /*x*/, const auto& y) {
    using T = typename std::decay_t<decltype(dy)>::Scalar;
    return dy * (y * (T(1) - y));
  }
};

/// Element-wise sigmoid: y = 1 / (1 + exp(-x)).
[[nodiscard]] constexpr auto sigmoid(Differentiable auto&& x) {
  return detail::make_unary<sigmoid_op>(std::forward<decltype(x)>(x));
}
FUSEGRAD_DATA_OPERAND_OVERLOAD(sigmoid)  // data (an Eigen object, a std::vector) in x's place: one error

}  // namespace fusegrad
