// ops/log1mexp.hpp -- element-wise log(1 - exp(x)) for x <= 0, accurate everywhere, and its vector-Jacobian product.
#pragma once

#include <numbers>
#include <string_view>
#include <type_traits>
#include <utility>

#include <Eigen/Core>

#include <fusegrad/detail/elementwise_functor.hpp>
#include <fusegrad/detail/make_node.hpp>
#include <fusegrad/detail/negated.hpp>
#include <fusegrad/detail/vector_math.hpp>

namespace fusegrad {

namespace detail {

/// f(x, near_zero, below): `near_zero` where x > -log 2, `below` elsewhere (NaN included): log1mexp's switch between
/// its two forms, on whole registers.
template <class T>
struct log1mexp_switch : elementwise_functor<T> {
  static constexpr T threshold = T(-std::numbers::ln2);
  T operator()(T x, T near_zero, T below) const { return x > threshold ? near_zero : below; }
  template <class Packet>
  Packet packetOp(const Packet& x, const Packet& near_zero, const Packet& below) const {
    using namespace Eigen::internal;
    return pselect(pcmp_lt(pset1<Packet>(threshold), x), near_zero, below);
  }
};

}  // namespace detail

/// Element-wise log(1 - exp(x)), for x <= 0: the log of a probability's complement given its
/// log, log(1 - p) from log p. Neither obvious form is accurate everywhere, so it switches at
/// x = -log 2 between them (Maechler, "Accurately computing log(1 - exp(-|a|))", 2012):
/// log(-expm1(x)) near 0, where 1 - exp(x) cancels, and log1p(-exp(x)) below, where
/// -expm1(x) rounds to 1. PyTorch has no such function; this one follows Julia's
/// LogExpFunctions.log1mexp: -inf at x = 0, NaN above.
///   value: y = x > -log 2 ? log(-expm1(x)) : log1p(-exp(x))
///   vjp:   dx = dy exp(x) / expm1(x)      (= -dy exp(x) / (1 - exp(x)))
/// At x = -1000 the value is -0 and the gradient -0; at x = -720 both are -exp(-720), a subnormal number; at
/// x = -1e-20, -46.05... and -1e20.
struct log1mexp_op {
  static constexpr std::string_view name = "log1mexp";
  static constexpr std::string_view backward_name = "Log1mexpBackward";
  static constexpr vjp_needs needs = vjp_needs::input;
  static constexpr bool analytic = false;  // real only: the switch between its two forms compares x
  static auto value(const auto& x) {
    using T = typename std::decay_t<decltype(x)>::Scalar;
    static_assert(std::is_floating_point_v<T>,
                  "fusegrad::log1mexp: real scalars only (it picks between its two forms by comparing x)");
    using pick = detail::log1mexp_switch<T>;
    auto near_zero = math::log(-math::expm1(x));
    auto below = math::log1p(-math::exp(x));
    // Both forms for every element, a mask picking, where xsimd computes them on registers of more than two values;
    // elsewhere (two doubles per register, or expm1 and log1p one value at a time) one form per element is cheaper.
    if constexpr (math::vectorised_v<T> && (Eigen::internal::packet_traits<T>::size > 2))
      return detail::ternary_expr(x, near_zero, below, pick());
    else
      return (x > pick::threshold).select(near_zero, below);
  }
  // exp(x) in the numerator keeps the slope where it is subnormal (x below -709.8), where the reciprocal of
  // expm1(-x) would overflow to 0. -(0 - x) rather than x: -0 for both zeros, so that the slope at x = 0 is -inf, the
  // limit from below, whichever zero (negated: in every lane of a register too).
  static auto vjp(const auto& dy, const auto& x, const auto& /*y*/) {
    using T = typename std::decay_t<decltype(x)>::Scalar;
    return dy * math::exp(x) / math::expm1(detail::negated(T(0) - x));
  }
};

/// Element-wise log(1 - exp(x)) for x <= 0, accurate at both ends (see log1mexp_op).
[[nodiscard]] constexpr auto log1mexp(Differentiable auto&& x) {
  return detail::make_unary<log1mexp_op>(std::forward<decltype(x)>(x));
}
FUSEGRAD_DATA_OPERAND_OVERLOAD(log1mexp)  // data (an Eigen object, a std::vector) in x's place: one error

}  // namespace fusegrad
