// detail/vector_math.hpp -- the element-wise functions the op specs evaluate: exp, sin, cos, tan, tanh, log1p
// and expm1 of real arrays, in SIMD registers for double.
//
// Eigen 3.4 evaluates sin, cos, tan, tanh, log1p and expm1 one element at a time for double, through the C
// library. Built with FUSEGRAD_SIMD_MATH (CMake turns it on when it finds xsimd), the op specs evaluate them
// with xsimd's vectorised functions instead, Eigen's packet loop handing each register to xsimd (sin only with
// registers wider than SSE2's: below that the C library's is the faster). Eigen's vectorised exp for double
// returns 5.6e-309 for every x below -709.1 instead of falling to subnormal numbers and 0; math::exp keeps
// Eigen's speed and takes those lanes from std::exp. Single values and tails go through a register too, so an
// element's value never depends on where it sits in an array. float (which Eigen vectorises itself), complex
// scalars, and these six when the option is off use Eigen's own functions. The largest errors, in ULPs against
// long double, are in README.md and tests/ops/vector_math_test.cpp.
#pragma once

#include <cmath>
#include <cstddef>
#include <type_traits>

#include <Eigen/Core>

#ifndef FUSEGRAD_SIMD_MATH
#define FUSEGRAD_SIMD_MATH 0
#endif

#if FUSEGRAD_SIMD_MATH
#if !__has_include(<xsimd/xsimd.hpp>)
#error \
    "FUSEGRAD_SIMD_MATH=1 needs xsimd's headers (Debian: libxsimd-dev); configure with -DFUSEGRAD_SIMD_MATH=OFF to build without"
#endif
#include <xsimd/xsimd.hpp>
#endif

namespace fusegrad::math {

/// Whether Eigen evaluates arrays of T in SIMD registers here (double, in a vectorising build).
template <class T>
inline constexpr bool in_registers_v =
    (Eigen::internal::packet_traits<double>::Vectorizable != 0) && std::is_same_v<T, double>;

/// Whether sin, cos, tan, tanh, log1p and expm1 of T use xsimd.
template <class T>
inline constexpr bool vectorised_v = (FUSEGRAD_SIMD_MATH != 0) && in_registers_v<T>;

/// Whether sin of T uses xsimd: only with registers wider than two doubles. With SSE2 alone, xsimd's sin
/// takes 1.2-1.7 times as long as the C library's (benchmarks/results/simd-math.md).
template <class T>
inline constexpr bool vectorised_sin_v = vectorised_v<T> && (Eigen::internal::packet_traits<double>::size > 2);

namespace detail {

// Eigen's packet types carry vector attributes that g++ and clang drop, with a warning, when the types
// are template arguments; Eigen silences the same warning in its own headers.
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wignored-attributes"
#endif

// The base of every functor below: Eigen's traits of these functors say they have a packetOp.
struct packet_function_base {};

// An Eigen functor for a function given on packets of any width, Function::apply(packet). A single
// value goes through the widest packet, so it gets the same arithmetic as the value in a full register.
template <class Function>
struct packet_function : packet_function_base {
  template <class Packet>
  Packet packetOp(const Packet& x) const {
    return Function::apply(x);
  }
  double operator()(double x) const {
    using packet = typename Eigen::internal::packet_traits<double>::type;
    return Eigen::internal::pfirst(Function::apply(Eigen::internal::pset1<packet>(x)));
  }
};

struct exp_function : packet_function<exp_function> {
  template <class Packet>
  static Packet apply(const Packet& x) {
    using namespace Eigen::internal;
    // Below log(DBL_MIN) the result is subnormal or 0, where Eigen's pexp is wrong: std::exp per lane.
    const Packet normal = pset1<Packet>(-708.3964185322641);
    if (!predux_any(pcmp_lt(x, normal))) return pexp(x);
    constexpr int lanes = unpacket_traits<Packet>::size;
    alignas(Packet) double values[lanes];
    pstoreu(values, pexp(x));
    alignas(Packet) double inputs[lanes];
    pstoreu(inputs, x);
    for (int k = 0; k < lanes; ++k)
      if (inputs[k] < -708.3964185322641) values[k] = std::exp(inputs[k]);
    return ploadu<Packet>(values);
  }
};

#if FUSEGRAD_SIMD_MATH
// Eigen's packet of n doubles (__m128d, __m256d or __m512d) is the register of the xsimd batch of as
// many lanes, built for the best instruction set compiled in.
template <class Packet, class Kernel>
Packet through_xsimd(const Packet& x, Kernel kernel) {
  using batch = xsimd::make_sized_batch_t<double, std::size_t(Eigen::internal::unpacket_traits<Packet>::size)>;
  static_assert(!std::is_void_v<batch>, "xsimd has no register of this Eigen packet's width");
  return static_cast<typename batch::register_type>(kernel(batch(x)));
}

#define FUSEGRAD_XSIMD_FUNCTION(fn)                                        \
  struct fn##_function : packet_function<fn##_function> {                  \
    static auto apply(const auto& x) {                                     \
      return through_xsimd(x, [](const auto& b) { return xsimd::fn(b); }); \
    }                                                                      \
  };
FUSEGRAD_XSIMD_FUNCTION(sin)
FUSEGRAD_XSIMD_FUNCTION(cos)
FUSEGRAD_XSIMD_FUNCTION(tan)
#undef FUSEGRAD_XSIMD_FUNCTION

// xsimd's tanh and expm1 convert x * log2(e) to a 64-bit integer, which overflows (undefined behaviour, in
// its SSE2 code) for NaN, infinities and |x| beyond about 1e18. Past a bound where the result no longer
// changes (tanh is +-1 beyond 19.1, expm1 -1 below -37.5 and infinite above 709.8) the input is clamped to
// the bound, and a NaN comes back unchanged.
template <class Batch>
Batch clamp_then(const Batch& x, double lowest, double highest, auto kernel) {
  const Batch finite = xsimd::select(xsimd::isnan(x), Batch(0.0), x);
  const Batch clamped = xsimd::min(xsimd::max(finite, Batch(lowest)), Batch(highest));
  return xsimd::select(xsimd::isnan(x), x, kernel(clamped));
}

struct tanh_function : packet_function<tanh_function> {
  static auto apply(const auto& x) {
    return through_xsimd(
        x, [](const auto& b) { return clamp_then(b, -20.0, 20.0, [](const auto& c) { return xsimd::tanh(c); }); });
  }
};

// xsimd 8 also returns +0 for log1p(-0) and expm1(-0); the C library (and PyTorch) keep the zero's sign.
struct log1p_function : packet_function<log1p_function> {
  static auto apply(const auto& x) {
    return through_xsimd(x, [](const auto& b) { return xsimd::select(b == 0, b, xsimd::log1p(b)); });
  }
};
struct expm1_function : packet_function<expm1_function> {
  static auto apply(const auto& x) {
    return through_xsimd(x, [](const auto& b) {
      return xsimd::select(b == 0, b, clamp_then(b, -40.0, 710.0, [](const auto& c) { return xsimd::expm1(c); }));
    });
  }
};
#endif

#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

}  // namespace detail

/// exp of an Eigen array expression, as the op specs evaluate it.
template <class Array>
auto exp(const Array& x) {
  if constexpr (in_registers_v<typename Array::Scalar>)
    return x.unaryExpr(detail::exp_function{});
  else
    return x.exp();
}

#if FUSEGRAD_SIMD_MATH
#define FUSEGRAD_ELEMENTWISE(fn, vectorised)          \
  template <class Array>                              \
  auto fn(const Array& x) {                           \
    if constexpr (vectorised<typename Array::Scalar>) \
      return x.unaryExpr(detail::fn##_function{});    \
    else                                              \
      return x.fn();                                  \
  }
#else
#define FUSEGRAD_ELEMENTWISE(fn, vectorised) \
  template <class Array>                     \
  auto fn(const Array& x) {                  \
    return x.fn();                           \
  }
#endif

/// sin, cos, tan, tanh, log1p and expm1 of an Eigen array expression, as the op specs evaluate them.
FUSEGRAD_ELEMENTWISE(sin, vectorised_sin_v)
FUSEGRAD_ELEMENTWISE(cos, vectorised_v)
FUSEGRAD_ELEMENTWISE(tan, vectorised_v)
FUSEGRAD_ELEMENTWISE(tanh, vectorised_v)
FUSEGRAD_ELEMENTWISE(log1p, vectorised_v)
FUSEGRAD_ELEMENTWISE(expm1, vectorised_v)
#undef FUSEGRAD_ELEMENTWISE

}  // namespace fusegrad::math

namespace Eigen::internal {
template <class Function>
  requires std::is_base_of_v<fusegrad::math::detail::packet_function_base, Function>
struct functor_traits<Function> {
  enum { Cost = 30 * NumTraits<double>::MulCost, PacketAccess = true };
};
}  // namespace Eigen::internal
