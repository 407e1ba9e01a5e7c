// ops/relu.hpp -- element-wise relu and its vector-Jacobian product.
#pragma once

#include <string_view>
#include <type_traits>
#include <utility>

#include <Eigen/Core>

#include <fusegrad/detail/elementwise_functor.hpp>
#include <fusegrad/detail/make_node.hpp>

namespace fusegrad {

namespace detail {
// f(dy, x): relu's VJP, 0 where x <= 0 (whatever dy is), dy elsewhere (at NaN too).
template <class T>
struct relu_vjp : elementwise_functor<T> {
  T operator()(T dy, T x) const { return x <= T(0) ? T(0) : dy; }
  template <class Packet>
  Packet packetOp(const Packet& dy, const Packet& x) const {
    using namespace Eigen::internal;
    return pandnot(dy, pcmp_le(x, pzero(x)));
  }
};
}  // namespace detail

/// Element-wise relu.
///   value: y = max(x, 0)
///   vjp:   dx = 0 where x <= 0, else dy (at NaN too, as PyTorch's threshold_backward)
struct relu_op {
  static constexpr std::string_view name = "relu";
  static constexpr std::string_view backward_name = "ReluBackward";
  static constexpr vjp_needs needs = vjp_needs::input;
  static constexpr bool analytic = false;  // a kink: the complex step does not apply (check/gradcheck.hpp)
  static auto value(const auto& x) {
    using T = typename std::decay_t<decltype(x)>::Scalar;
    return x.max(T(0));
  }
  static auto vjp(const auto& dy, const auto& x, const auto& /*y*/) {
    using T = typename std::decay_t<decltype(dy)>::Scalar;
    return dy.binaryExpr(x, detail::relu_vjp<T>());
  }
};

/// Element-wise relu: y = max(x, 0).
[[nodiscard]] constexpr auto relu(Differentiable auto&& x) {
  return detail::make_unary<relu_op>(std::forward<decltype(x)>(x));
}
FUSEGRAD_DATA_OPERAND_OVERLOAD(relu)  // data (an Eigen object, a std::vector) in x's place: one error

}  // namespace fusegrad
