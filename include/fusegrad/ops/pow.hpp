// ops/pow.hpp -- element-wise pow with broadcasting, and its vector-Jacobian products.
#pragma once

#include <cmath>
#include <complex>
#include <concepts>
#include <string_view>
#include <type_traits>
#include <utility>

#include <Eigen/Core>

#include <fusegrad/detail/make_node.hpp>

namespace fusegrad {

namespace detail {

// a^b on real numbers as one Eigen functor: std::pow one value at a time; on a register, Eigen's vectorised pow, whose
// sign is wrong for a negative base (-0 too) to an odd integer power where the result is infinite or zero (pow(-inf,
// 3), pow(-0, -1)), so the base's sign bit is set on |a^b| there. One functor, not an expression of comparisons and
// selects: every distinct Eigen expression type costs the compiler about 10 ms in each node that meets it.
template <std::floating_point T>
struct signed_pow {
  T operator()(T a, T b) const { return std::pow(a, b); }
  template <class Packet>
  Packet packetOp(const Packet& a, const Packet& b) const {
    using namespace Eigen::internal;
    const Packet half_b = pmul(b, pset1<Packet>(T(0.5)));
    const Packet odd = pandnot(pcmp_eq(b, pfloor(b)), pcmp_eq(half_b, pfloor(half_b)));  // all ones where b is odd
    const Packet sign = pand(pand(a, pset1<Packet>(T(-0.0))), odd);
    return por(pabs(generic_pow(a, b)), sign);
  }
};

}  // namespace detail

/// Element-wise pow; both VJPs are in the broadcast shape (the node reduces them).
///   value: y = a^b, negative for a negative base (-0 too) and an odd integer exponent, infinities and zeros too
///   vjp:   da = dy * b * a^(b-1), and 0 where b = 0
///          db = dy * y * log(a), and 0 where a = 0 and b >= 0
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
    return (b == T(0)).select(T(0), dy * b * power(a, b - T(1)));
  }
  static auto vjp_rhs(const auto& dy, const auto& a, const auto& b, const auto& y) {
    using T = typename std::decay_t<decltype(dy)>::Scalar;
    return (a == T(0) && b.real() >= 0).select(T(0), dy * y * a.log());
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
      return a.binaryExpr(b, detail::signed_pow<T>{});
    }
  }
};

/// Element-wise pow(a, b) with NumPy broadcasting; either side may be a plain number.
template <class A, class B>
  requires BinaryOperands<A, B>
[[nodiscard]] constexpr auto pow(A&& a, B&& b) {
  return detail::make_binary<pow_op>(std::forward<A>(a), std::forward<B>(b));
}

}  // namespace fusegrad

template <class T>
struct Eigen::internal::functor_traits<fusegrad::detail::signed_pow<T>>
    : Eigen::internal::functor_traits<Eigen::internal::scalar_pow_op<T, T>> {};
