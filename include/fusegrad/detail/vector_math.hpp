// detail/vector_math.hpp -- the element-wise functions the op specs evaluate: exp, log, sin, cos, tan, tanh, log1p
// and expm1 of real arrays, in SIMD registers for double; sqrt, correctly rounded in every register.
//
// Eigen 3.4 evaluates sin, cos, tan, tanh, log1p and expm1 one element at a time for double, through the C
// library. Built with FUSEGRAD_SIMD_MATH (CMake turns it on when it finds xsimd), the op specs evaluate them
// with xsimd's vectorised functions instead, Eigen's packet loop handing each register to xsimd (sin only with
// registers wider than SSE2's: below that the C library's is the faster). Eigen's vectorised exp for double
// returns 5.6e-309 for every x below -709.1 instead of falling to subnormal numbers and 0; math::exp keeps
// Eigen's speed and takes those lanes from std::exp; likewise math::log, where Eigen's vectorised log takes a
// subnormal input for the smallest normal number. Single values and tails go through a register too, so an element's
// value never depends on where it sits in an array, except for log, whose single values and tails are std::log's (as
// with Eigen's own log). float (which Eigen vectorises itself), complex scalars, and sin, cos, tan, tanh, log1p and
// expm1 when the option is off use Eigen's own functions. The largest errors, in ULPs against long double, are in
// README.md and tests/ops/vector_math_test.cpp.
#pragma once

#include <cmath>
#include <cstddef>
#include <limits>
#include <type_traits>

#include <Eigen/Core>

#include <fusegrad/detail/packet_function.hpp>
#include <fusegrad/detail/xsimd_functions.hpp>

namespace fusegrad::math {
inline namespace FUSEGRAD_MATH_NAMESPACE {

/// Whether T is float or double and Eigen evaluates arrays of T in SIMD registers here: then exp's packets are
/// mended.
template <class T>
inline constexpr bool in_registers_v =
    std::is_floating_point_v<T> && !std::is_same_v<T, long double> && Eigen::internal::packet_traits<T>::Vectorizable;

/// Whether tan, cos, tanh, log1p and expm1 of T use xsimd: double, in a vectorising build with xsimd, where
/// xsimd has a register of Eigen's width (xsimd 8 has none for POWER's or IBM Z's vectors, for example).
template <class T>
inline constexpr bool vectorised_v =
#if FUSEGRAD_SIMD_MATH
    std::is_same_v<T, double>&& in_registers_v<T> &&
    !std::is_void_v<xsimd::make_sized_batch_t<double, std::size_t(Eigen::internal::packet_traits<double>::size)>>;
#else
    false;
#endif

/// Whether sin of T uses xsimd: as vectorised_v, and only with registers wider than two doubles. With SSE2
/// alone, the C library's sin is the faster (benchmarks/results/simd-math.md).
template <class T>
inline constexpr bool vectorised_sin_v = vectorised_v<T> && (Eigen::internal::packet_traits<double>::size > 2);

/// Whether sin and cos of T come from one argument reduction: where both are xsimd's, which computes both
/// polynomials for either, so that math::sin_cos costs what sin alone does.
template <class T>
inline constexpr bool sin_cos_together_v = vectorised_sin_v<T>;

namespace detail {

// Eigen's packet types carry vector attributes that g++ and clang drop, with a warning, when the types
// are template arguments; Eigen silences the same warning in its own headers.
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wignored-attributes"
#endif

template <class Scalar>
Scalar std_exp(Scalar x) {
  return std::exp(x);
}

// The log of the smallest normal number: below it exp is subnormal or 0, where Eigen's pexp is wrong (for
// double it returns 5.6e-309 from -709.8 down; for float, in SSE2 registers, 2.9e-39 from -88.8 down).
template <class Scalar>
inline constexpr Scalar log_smallest_normal = std::is_same_v<Scalar, float> ? Scalar(-87.33654475)
                                                                            : Scalar(-708.3964185322641);

struct exp_function : packet_function<exp_function> {
  template <class Packet>
  static Packet apply(const Packet& x) {
    using namespace Eigen::internal;
    using scalar = typename unpacket_traits<Packet>::type;
    const Packet normal = pcmp_le(pset1<Packet>(log_smallest_normal<scalar>), x);  // false for NaN
    return except_lanes(
        x, normal, scalar(0), [](const Packet& y) { return common(y); }, std_exp<scalar>);
  }
  template <class Scalar>
  static bool is_common(Scalar x) {
    return log_smallest_normal<Scalar> <= x;  // false for NaN
  }
  template <class Packet>
  static Packet common(const Packet& x) {
    return Eigen::internal::pexp(x);
  }
};

template <class Scalar>
Scalar std_log(Scalar x) {
  return std::log(x);
}

// Eigen's plog takes a subnormal input for the smallest normal number (log(1e-310) comes out -708.4, not -713.8):
// those lanes come from std::log. One value alone (an array's last elements too) is std::log's, as Eigen's own log
// gives it: a register-wide plog of its copies would sit on the critical path of a loss that takes the log of a
// scalar parameter (log(sigma)).
struct log_function : packet_function<log_function> {
  template <class Scalar>
  Scalar operator()(Scalar x) const {
    return std::log(x);
  }
  template <class Packet>
  static Packet apply(const Packet& x) {
    using namespace Eigen::internal;
    using scalar = typename unpacket_traits<Packet>::type;
    const Packet subnormal =
        pand(pcmp_lt(pzero(x), x), pcmp_lt(x, pset1<Packet>(std::numeric_limits<scalar>::min())));  // false for NaN
    return except_lanes(
        x, pandnot(ptrue(x), subnormal), scalar(1), [](const Packet& y) { return common(y); }, std_log<scalar>);
  }
  template <class Packet>
  static Packet common(const Packet& x) {
    return Eigen::internal::plog(x);
  }
};

// The processor's square root of a register: correctly rounded, as std::sqrt and PyTorch's are. Eigen's own (with
// EIGEN_FAST_MATH, its default) is a reciprocal square root and Newton steps for float registers on x86 and for
// AVX-512's double registers: a bit or two short, NaN at +inf, 0 for subnormal inputs and +0 at -0. Other registers
// keep Eigen's, which is the processor's.
template <class Packet>
Packet exact_sqrt(const Packet& x) {
  return Eigen::internal::psqrt(x);
}
#if defined(EIGEN_VECTORIZE_SSE)
inline Eigen::internal::Packet4f exact_sqrt(const Eigen::internal::Packet4f& x) { return _mm_sqrt_ps(x); }
#endif
#if defined(EIGEN_VECTORIZE_AVX)
inline Eigen::internal::Packet8f exact_sqrt(const Eigen::internal::Packet8f& x) { return _mm256_sqrt_ps(x); }
#endif
#if defined(EIGEN_VECTORIZE_AVX512)
inline Eigen::internal::Packet16f exact_sqrt(const Eigen::internal::Packet16f& x) { return _mm512_sqrt_ps(x); }
inline Eigen::internal::Packet8d exact_sqrt(const Eigen::internal::Packet8d& x) { return _mm512_sqrt_pd(x); }
#endif

struct sqrt_function : packet_function<sqrt_function> {
  template <class Packet>
  static Packet apply(const Packet& x) {
    return exact_sqrt(x);
  }
};

#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

}  // namespace detail

/// sqrt of an Eigen array expression, as the op specs evaluate it: correctly rounded in every register.
template <class Array>
auto sqrt(const Array& x) {
  if constexpr (in_registers_v<typename Array::Scalar>)
    return x.unaryExpr(detail::sqrt_function{});
  else
    return x.sqrt();
}

/// The square root of one SIMD register of values (an Eigen packet) or of one value (Eigen's psqrt of a number is
/// std::sqrt's), as math::sqrt gives each element: for loops written a register at a time (optim/adam.hpp).
template <class Packet>
Packet sqrt_of(const Packet& x) {
  return detail::exact_sqrt(x);
}

/// log of an Eigen array expression, as the op specs evaluate it.
template <class Array>
auto log(const Array& x) {
  if constexpr (in_registers_v<typename Array::Scalar>)
    return x.unaryExpr(detail::log_function{});
  else
    return x.log();
}

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

#if defined(__GNUC__)  // as in detail: Eigen's packet types as template arguments
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wignored-attributes"
#endif
/// sin(x) into `s` and cos(x) into `c`, Eigen arrays or maps of x's length (a sweep's blocks, a taped node's values):
/// the values math::sin and math::cos give, from one argument reduction where sin_cos_together_v<T>.
template <class Array, class Out>
void sin_cos(const Array& x, Out& s, Out& c) {
#if FUSEGRAD_SIMD_MATH
  using T = typename Out::Scalar;
  if constexpr (sin_cos_together_v<T>) {
    using namespace Eigen::internal;
    using packet = typename packet_traits<T>::type;
    constexpr Eigen::Index lanes = unpacket_traits<packet>::size;
    constexpr int rows = Out::RowsAtCompileTime;
    if constexpr (rows == 1) {  // a single value, in every lane of a register (as packet_function gives it)
      const T value = x(0);
      const auto [ps, pc] = detail::trigonometric_is_common(value) ? detail::sin_cos_common(pset1<packet>(value))
                                                                   : detail::sin_cos_packet(pset1<packet>(value));
      s(0) = pfirst(ps);
      c(0) = pfirst(pc);
      return;
    }
    // Read in place where x is contiguous memory (a map of a whole array); otherwise evaluated into a block first.
    constexpr bool contiguous =
        bool(Eigen::internal::traits<Array>::Flags & Eigen::DirectAccessBit) && Array::InnerStrideAtCompileTime == 1;
    const std::conditional_t<contiguous, const Array&, const typename Out::PlainObject> in = x;
    const Eigen::Index n = in.size();
    s.resize(n);
    c.resize(n);
    Eigen::Index i = 0;
    for (; i + lanes <= n; i += lanes) {
      const auto [ps, pc] = detail::sin_cos_packet(ploadu<packet>(in.data() + i));
      pstoreu(s.data() + i, ps);
      pstoreu(c.data() + i, pc);
    }
    if constexpr (rows == Eigen::Dynamic || rows % lanes != 0) {
      if (i < n) {  // the last, partial register: its lanes past the end read zeros
        alignas(packet) T part[lanes] = {};
        for (Eigen::Index k = i; k < n; ++k) part[k - i] = in[k];
        const auto [ps, pc] = detail::sin_cos_packet(pload<packet>(part));
        alignas(packet) T part_s[lanes], part_c[lanes];
        pstore(part_s, ps);
        pstore(part_c, pc);
        for (Eigen::Index k = i; k < n; ++k) {
          s[k] = part_s[k - i];
          c[k] = part_c[k - i];
        }
      }
    }
    return;
  }
#endif
  s = sin(x);
  c = cos(x);
}
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

}  // namespace FUSEGRAD_MATH_NAMESPACE
}  // namespace fusegrad::math
