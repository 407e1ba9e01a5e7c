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
#include <concepts>
#include <cstddef>
#include <type_traits>
#include <utility>

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

// The functions below differ with FUSEGRAD_SIMD_MATH: an inline namespace per setting keeps translation units
// built with different settings from sharing (and silently mixing) their definitions.
#if FUSEGRAD_SIMD_MATH
#define FUSEGRAD_MATH_NAMESPACE with_xsimd
#else
#define FUSEGRAD_MATH_NAMESPACE with_eigen
#endif

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
/// alone, xsimd's sin took 1.2-1.7 times as long as the C library's (benchmarks/results/simd-math.md).
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

// The base of every functor below: Eigen's traits of these functors say they have a packetOp.
struct packet_function_base {};

// A function whose apply(packet) first tests every lane for its common case (exp: a normal result; sin: |x| up to
// 20 pi) and, where all lanes pass, runs common(packet). For one value the test is a comparison of that value,
// not a reduction over a register's lanes, which costs a scalar function call a chain of latencies.
template <class Function, class Packet, class Scalar>
concept has_common_case = requires(const Packet& p, Scalar x) {
  { Function::is_common(x) } -> std::same_as<bool>;
  { Function::common(p) } -> std::same_as<Packet>;
};

// An Eigen functor for a function given on packets of any width, Function::apply(packet). A single
// value goes through the widest packet, so it gets the same arithmetic as the value in a full register.
template <class Function>
struct packet_function : packet_function_base {
  template <class Packet>
  Packet packetOp(const Packet& x) const {
    return Function::apply(x);
  }
  template <class Scalar>
  Scalar operator()(Scalar x) const {
    using namespace Eigen::internal;
    using packet = typename packet_traits<Scalar>::type;
    if constexpr (has_common_case<Function, packet, Scalar>)
      if (Function::is_common(x)) return pfirst(Function::common(pset1<packet>(x)));
    return pfirst(Function::apply(pset1<packet>(x)));
  }
};

// Computes `vector` on the whole register, except the lanes `inside` does not hold (where `vector` is wrong or
// would read its neighbours), which `scalar` computes one at a time. Those lanes reach `vector` as `stand_in`.
template <class Packet, class Vector, class Scalar = typename Eigen::internal::unpacket_traits<Packet>::type>
Packet except_lanes(const Packet& x, const Packet& inside, std::type_identity_t<Scalar> stand_in, Vector vector,
                    std::type_identity_t<Scalar> (*scalar)(Scalar)) {
  using namespace Eigen::internal;
  if (!predux_any(pandnot(ptrue(x), inside))) return vector(x);
  constexpr int lanes = unpacket_traits<Packet>::size;
  alignas(Packet) Scalar values[lanes];
  pstoreu(values, vector(pselect(inside, x, pset1<Packet>(stand_in))));
  alignas(Packet) Scalar inputs[lanes];
  pstoreu(inputs, x);
  alignas(Packet) Scalar kept[lanes];
  pstoreu(kept, inside);
  for (int k = 0; k < lanes; ++k)
    if (kept[k] == 0) values[k] = scalar(inputs[k]);  // a false lane is all zero bits
  return ploadu<Packet>(values);
}

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

#if FUSEGRAD_SIMD_MATH
// Eigen's packet of n doubles (__m128d, __m256d or __m512d) is the register of the xsimd batch of as
// many lanes, built for the best instruction set compiled in.
template <class Packet, class Kernel>
Packet through_xsimd(const Packet& x, Kernel kernel) {
  using batch = xsimd::make_sized_batch_t<double, std::size_t(Eigen::internal::unpacket_traits<Packet>::size)>;
  static_assert(!std::is_void_v<batch>, "xsimd has no register of this Eigen packet's width");
  return static_cast<typename batch::register_type>(kernel(batch(x)));
}

// xsimd's sin, cos and tan reduce the argument by one of several methods, picked by the largest |x| in the
// register, and the methods for |x| up to 20 pi and up to 823550 round differently. So a register is split:
// lanes up to 20 pi, and lanes up to 823550, each go through xsimd in a register of their own kind; larger,
// infinite and NaN lanes go to the C library. A lane's value never depends on its neighbours.
template <class Packet, class Kernel>
EIGEN_DONT_INLINE Packet trigonometric_by_size(const Packet& x, const Packet& small, Kernel kernel,
                                               double (*scalar)(double)) {
  using namespace Eigen::internal;
  const Packet medium = pcmp_le(pabs(x), pset1<Packet>(xsimd::constants::mediumpi<double>()));  // false for NaN
  const auto by_size = [&](const Packet& y) {
    // 100 takes the medium method, as the medium lanes do; 0 the small one.
    return pselect(small, through_xsimd(pselect(small, y, pzero(y)), kernel),
                   through_xsimd(pselect(small, pset1<Packet>(100.0), y), kernel));
  };
  return except_lanes(x, medium, 0.0, by_size, scalar);
}

// The common case of sin, cos and tan (and of sin_cos_packet): |x| up to 20 pi, false for NaN. For a register, the
// lanes in it; for one value, whether it is (a comparison: a register's test reduces over its lanes).
template <class Packet>
Packet up_to_twenty_pi(const Packet& x) {
  using namespace Eigen::internal;
  return pcmp_le(pabs(x), pset1<Packet>(xsimd::constants::twentypi<double>()));
}
inline bool trigonometric_is_common(double x) { return std::abs(x) <= xsimd::constants::twentypi<double>(); }

template <class Packet, class Kernel>
Packet trigonometric(const Packet& x, Kernel kernel, double (*scalar)(double)) {
  using namespace Eigen::internal;
  const Packet small = up_to_twenty_pi(x);
  if (predux_any(pandnot(ptrue(x), small))) return trigonometric_by_size(x, small, kernel, scalar);
  return through_xsimd(x, kernel);  // every lane up to 20 pi: the common case, kept inline
}

// sin and cos of one register: xsimd's sincos where every lane is up to 20 pi (the common case); otherwise the
// two functions above, so a lane's values are those math::sin and math::cos give it.
template <class Packet>
std::pair<Packet, Packet> sin_cos_packet(const Packet& x);

inline double std_sin(double x) { return std::sin(x); }
inline double std_cos(double x) { return std::cos(x); }
inline double std_tan(double x) { return std::tan(x); }

#define FUSEGRAD_XSIMD_FUNCTION(fn)                                                 \
  struct fn##_function : packet_function<fn##_function> {                           \
    static constexpr auto kernel = [](const auto& b) { return xsimd::fn(b); };      \
    static auto apply(const auto& x) { return trigonometric(x, kernel, std_##fn); } \
    static bool is_common(double x) { return trigonometric_is_common(x); }          \
    template <class Packet>                                                         \
    static Packet common(const Packet& x) {                                         \
      return through_xsimd(x, kernel);                                              \
    }                                                                               \
  };
FUSEGRAD_XSIMD_FUNCTION(sin)
FUSEGRAD_XSIMD_FUNCTION(cos)
FUSEGRAD_XSIMD_FUNCTION(tan)
#undef FUSEGRAD_XSIMD_FUNCTION

// Every lane up to 20 pi.
template <class Packet>
std::pair<Packet, Packet> sin_cos_common(const Packet& x) {
  using batch = xsimd::make_sized_batch_t<double, std::size_t(Eigen::internal::unpacket_traits<Packet>::size)>;
  const auto [s, c] = xsimd::sincos(batch(x));
  using register_type = typename batch::register_type;
  return {static_cast<register_type>(s), static_cast<register_type>(c)};
}

template <class Packet>
std::pair<Packet, Packet> sin_cos_packet(const Packet& x) {
  using namespace Eigen::internal;
  if (predux_any(pandnot(ptrue(x), up_to_twenty_pi(x)))) return {sin_function::apply(x), cos_function::apply(x)};
  return sin_cos_common(x);
}

// xsimd's tanh and expm1 convert x * log2(e) to a 64-bit integer, which overflows (undefined behaviour, in
// its SSE2 code) for NaN, infinities and |x| beyond about 1e18. Past a bound where the result no longer
// changes (tanh is +-1 beyond 19.1, expm1 -1 below -37.5) the input is clamped to the bound, and a NaN comes back
// unchanged.
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
// Above 40, expm1(x) and exp(x) round to the same double. xsimd's expm1 (and its exp) overflow from 709.44 on, where
// the result is finite up to 709.78, so those lanes take Eigen's exp.
struct expm1_function : packet_function<expm1_function> {
  template <class Packet>
  static Packet apply(const Packet& x) {
    using namespace Eigen::internal;
    const Packet large = pcmp_lt(pset1<Packet>(40.0), x);  // false for NaN
    const Packet moderate = through_xsimd(x, [](const auto& b) {
      return xsimd::select(b == 0, b, clamp_then(b, -40.0, 40.0, [](const auto& c) { return xsimd::expm1(c); }));
    });
    return predux_any(large) ? pselect(large, pexp(x), moderate) : moderate;
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
#undef FUSEGRAD_MATH_NAMESPACE

namespace Eigen::internal {
template <class Function>
  requires std::is_base_of_v<fusegrad::math::detail::packet_function_base, Function>
struct functor_traits<Function> {
  enum { Cost = 30 * NumTraits<double>::MulCost, PacketAccess = true };
};
}  // namespace Eigen::internal
