// ops/pow.hpp -- element-wise pow with broadcasting, and its vector-Jacobian products.
#pragma once

#include <cmath>
#include <complex>
#include <concepts>
#include <string_view>
#include <type_traits>
#include <utility>

#include <Eigen/Core>

#include <fusegrad/detail/elementwise_functor.hpp>
#include <fusegrad/detail/make_node.hpp>
#include <fusegrad/detail/vector_math.hpp>

namespace fusegrad {

namespace detail {

// a^b on real numbers, one value at a time: glibc's pow is faster than Eigen's vectorised pow, on AVX-512 registers
// too, and keeps the sign of a negative base to an odd integer power where the result is infinite or zero (pow(-inf,
// 3), pow(-0, -1)), which Eigen's drops.
template <class T>
struct scalar_pow : elementwise_functor<T, /*Vectorised=*/false> {
  T operator()(T a, T b) const { return std::pow(a, b); }
};

// f(dy, a, b): pow's VJP for its base, dy * (b * a^(b-1)), and 0 where b = 0 (whatever dy is), as PyTorch has it.
template <class T>
struct pow_base_vjp : elementwise_functor<T, /*Vectorised=*/false> {
  T operator()(T dy, T a, T b) const { return b == T(0) ? T(0) : dy * (b * std::pow(a, b - T(1))); }
};

// f(y, a, b): the slope of y = a^b in b, y * log(a), and 0 where a = 0 and b >= 0.
template <class T>
struct pow_exponent_slope : elementwise_functor<T> {
  T operator()(T y, T a, T b) const { return a == T(0) && b >= T(0) ? T(0) : y * std::log(a); }
  template <class Packet>
  Packet packetOp(const Packet& y, const Packet& a, const Packet& b) const {
    using namespace Eigen::internal;
    const Packet zero = pzero(a);
    return pselect(pand(pcmp_eq(a, zero), pcmp_le(zero, b)), zero, pmul(y, math::detail::log_function::apply(a)));
  }
};

}  // namespace detail

/// Element-wise pow; both VJPs are in the broadcast shape (the node reduces them).
///   value: y = a^b, negative for a negative base (-0 too) and an odd integer exponent, infinities and zeros too
///   vjp:   da = dy * b * a^(b-1), and 0 where b = 0
///          db = dy * (y * log(a)), where y * log(a) is 0 if a = 0 and b >= 0
/// The zeros are the limits PyTorch also takes: a^0 is 1 for every a, so da is 0 even at
/// a = 0 (where b * a^(b-1) is 0 * inf); and y = 0^b is 0 for every b > 0 (1 at b = 0), so
/// db is 0 there (where y * log(a) is 0 * -inf).
struct pow_op {
  static constexpr std::string_view name = "pow";
  static constexpr std::string_view symbol = "**";
  static constexpr std::string_view backward_name = "PowBackward";
  static constexpr vjp_needs needs = vjp_needs::input_and_output;
  static auto value(const auto& a, const auto& b) { return power(a, b); }
  static auto vjp_lhs(const auto& dy, const auto& a, const auto& b, const auto& /*y*/) {
    using T = typename std::decay_t<decltype(dy)>::Scalar;
    if constexpr (std::floating_point<T>)
      return detail::ternary_expr(dy, a, b, detail::pow_base_vjp<T>());
    else
      return (b == T(0)).select(T(0), dy * b * power(a, b - T(1)));
  }
  static auto vjp_rhs(const auto& dy, const auto& a, const auto& b, const auto& y) {
    using T = typename std::decay_t<decltype(dy)>::Scalar;
    if constexpr (std::floating_point<T>)
      return dy * detail::ternary_expr(y, a, b, detail::pow_exponent_slope<T>());
    else
      return dy * (a == T(0) && b.real() >= 0).select(T(0), y * a.log());
  }

 private:
  // a^b, as std::pow gives it (on complex numbers, as the real pow gives integer powers).
  static auto power(const auto& a, const auto& b) {
    using T = typename std::decay_t<decltype(a)>::Scalar;
    if constexpr (!std::floating_point<T>) {  // complex: the complex step (check/gradcheck.hpp)
      // exp(b log a) loses the step where a is a negative real: arg(a + ih) rounds to pi. An integer power is
      // multiplied out instead, as the real pow computes it.
      return a.binaryExpr(b, [](const T& base, const T& exponent) -> T {
        const auto n = exponent.real();
        if (exponent.imag() != 0 || std::trunc(n) != n || std::abs(n) > 1024) return std::pow(base, exponent);
        T result(1), factor = n < 0 ? T(1) / base : base;
        for (auto k = static_cast<unsigned>(std::abs(n)); k != 0; k >>= 1) {
          if (k & 1u) result *= factor;
          factor *= factor;
        }
        return result;
      });
    } else {
      return a.binaryExpr(b, detail::scalar_pow<T>());
    }
  }
};

/// Element-wise pow(a, b) with NumPy broadcasting; either side may be a plain number.
template <class A, class B>
  requires BinaryOperands<A, B>
[[nodiscard]] constexpr auto pow(A&& a, B&& b) {
  return detail::make_binary<pow_op>(std::forward<A>(a), std::forward<B>(b));
}
FUSEGRAD_DATA_OPERAND_OVERLOADS(pow)  // data beside an expression: one error

}  // namespace fusegrad
