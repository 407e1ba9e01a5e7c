// ops/abs.hpp -- element-wise abs and its vector-Jacobian product.
#pragma once

#include <string_view>
#include <type_traits>
#include <utility>

#include <Eigen/Core>

#include <fusegrad/detail/elementwise_functor.hpp>
#include <fusegrad/detail/make_node.hpp>

namespace fusegrad {

namespace detail {
// abs's slope, sign(x): 1 where x > 0, -1 where x < 0, 0 at 0 and NaN.
template <class T>
struct sign_slope : elementwise_functor<T> {
  T operator()(T x) const { return T(x > T(0)) - T(x < T(0)); }
  template <class Packet>
  Packet packetOp(const Packet& x) const {
    using namespace Eigen::internal;
    const Packet zero = pzero(x), one = pset1<Packet>(T(1));
    return psub(pand(pcmp_lt(zero, x), one), pand(pcmp_lt(x, zero), one));
  }
};
}  // namespace detail

/// Element-wise abs.
///   value: y = |x|
///   vjp:   dx = sign(x) dy  (0 at x = 0 and at NaN, like PyTorch)
struct abs_op {
  static constexpr std::string_view name = "abs";
  static constexpr std::string_view backward_name = "AbsBackward";
  static constexpr vjp_needs needs = vjp_needs::input;
  static constexpr bool analytic = false;  // a kink: the complex step does not apply (check/gradcheck.hpp)
  static auto value(const auto& x) { return x.abs(); }
  static auto vjp(const auto& dy, const auto& x, const auto& /*y*/) {
    using T = typename std::decay_t<decltype(dy)>::Scalar;
    return dy * x.unaryExpr(detail::sign_slope<T>());
  }
};

/// Element-wise abs: y = |x|.
[[nodiscard]] constexpr auto abs(Differentiable auto&& x) {
  return detail::make_unary<abs_op>(std::forward<decltype(x)>(x));
}
FUSEGRAD_DATA_OPERAND_OVERLOAD(abs)  // data (an Eigen object, a std::vector) in x's place: one error

}  // namespace fusegrad
