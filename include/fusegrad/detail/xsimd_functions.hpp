// detail/xsimd_functions.hpp -- sin, cos, tan, tanh, log1p and expm1 of double from xsimd, as Eigen packet functors
// (with FUSEGRAD_SIMD_MATH): a register's lanes split where xsimd's argument reduction would make a value depend on
// its neighbours, and inputs clamped where xsimd's conversions overflow.
#pragma once

#include <cmath>
#include <cstddef>
#include <numbers>
#include <type_traits>
#include <utility>

#include <Eigen/Core>

#include <fusegrad/detail/packet_function.hpp>

#if FUSEGRAD_SIMD_MATH
namespace fusegrad::math {
inline namespace FUSEGRAD_MATH_NAMESPACE {
namespace detail {

// Eigen's packet types carry vector attributes that g++ and clang drop, with a warning, when the types
// are template arguments; Eigen silences the same warning in its own headers.
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wignored-attributes"
#endif

// Eigen's packet of n doubles (__m128d, __m256d or __m512d) is the register of the xsimd batch of as
// many lanes, built for the best instruction set compiled in.
template <class Packet, class Kernel>
Packet through_xsimd(const Packet& x, Kernel kernel) {
  using batch = xsimd::make_sized_batch_t<double, std::size_t(Eigen::internal::unpacket_traits<Packet>::size)>;
  static_assert(!std::is_void_v<batch>, "xsimd has no register of this Eigen packet's width");
  return static_cast<typename batch::register_type>(kernel(batch(x)));
}

// xsimd reduces x to r = x - k pi/2 with an absolute error of about 1e-27 at |x| = 45 (more further out). Where the
// result is about r itself -- sin and tan next to a nonzero multiple of pi, cos and tan next to an odd multiple of
// pi/2 -- that error is relative: xsimd's cos(-45.553093477052002) is 2.6e4 ULPs off. Lanes closer than this to a
// nonzero multiple of pi/2 go to the C library, which reduces exactly; a lane lands there with a chance of about 1e-8.
inline constexpr double near_a_multiple_of_half_pi = 1e-8;

// Whether x lies within near_a_multiple_of_half_pi of a nonzero multiple of pi/2 (false for NaN and infinities). r is
// x's distance to the nearest such multiple to within 1e-10 up to |x| = 823550, where the C library takes over.
template <class Packet>
Packet near_a_zero_or_pole(const Packet& x) {
  using namespace Eigen::internal;
  // k rounded by adding and taking away 1.5 * 2^52 (SSE2 has no rounding instruction): exact below 2^51.
  const Packet magic = pset1<Packet>(0x1.8p52);
  const Packet k = psub(padd(pmul(x, pset1<Packet>(2 / std::numbers::pi)), magic), magic);
  const Packet r = psub(x, pmul(k, pset1<Packet>(std::numbers::pi / 2)));
  return pand(pcmp_lt(pabs(r), pset1<Packet>(near_a_multiple_of_half_pi)), pcmp_le(pset1<Packet>(0.5), pabs(k)));
}
inline bool near_a_zero_or_pole(double x) {
  const double k = std::nearbyint(x * (2 / std::numbers::pi));
  return std::abs(x - k * (std::numbers::pi / 2)) < near_a_multiple_of_half_pi && std::abs(k) >= 0.5;
}

// xsimd's sin, cos and tan reduce the argument by one of several methods, picked by the largest |x| in the
// register, and the methods for |x| up to 20 pi and up to 823550 round differently. So a register is split:
// lanes up to 20 pi, and lanes up to 823550, each go through xsimd in a register of their own kind; larger,
// infinite and NaN lanes, and lanes next to a zero or pole, go to the C library. A lane's value never depends on its
// neighbours.
template <class Packet, class Kernel>
EIGEN_DONT_INLINE Packet trigonometric_by_size(const Packet& x, const Packet& small, Kernel kernel,
                                               double (*scalar)(double)) {
  using namespace Eigen::internal;
  const Packet medium = pandnot(pcmp_le(pabs(x), pset1<Packet>(xsimd::constants::mediumpi<double>())),
                                near_a_zero_or_pole(x));  // false for NaN
  const auto by_size = [&](const Packet& y) {
    // 100 takes the medium method, as the medium lanes do; 0 the small one.
    return pselect(small, through_xsimd(pselect(small, y, pzero(y)), kernel),
                   through_xsimd(pselect(small, pset1<Packet>(100.0), y), kernel));
  };
  return except_lanes(x, medium, 0.0, by_size, scalar);
}

// The common case of sin, cos and tan (and of sin_cos_packet): |x| up to 20 pi and not next to a zero or pole, false
// for NaN. For a register, the lanes in it; for one value, whether it is (a comparison: a register's test reduces over
// its lanes).
template <class Packet>
Packet trigonometric_common_lanes(const Packet& x) {
  using namespace Eigen::internal;
  return pandnot(pcmp_le(pabs(x), pset1<Packet>(xsimd::constants::twentypi<double>())), near_a_zero_or_pole(x));
}
inline bool trigonometric_is_common(double x) {
  return std::abs(x) <= xsimd::constants::twentypi<double>() && !near_a_zero_or_pole(x);
}

template <class Packet, class Kernel>
Packet trigonometric(const Packet& x, Kernel kernel, double (*scalar)(double)) {
  using namespace Eigen::internal;
  const Packet small = trigonometric_common_lanes(x);
  if (predux_any(pandnot(ptrue(x), small))) return trigonometric_by_size(x, small, kernel, scalar);
  return through_xsimd(x, kernel);  // the common case, kept inline
}

// sin and cos of one register: xsimd's sincos where every lane is in the common case (up to 20 pi, not next to a zero
// or pole); otherwise the two functions above, so a lane's values are those math::sin and math::cos give it.
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
  if (predux_any(pandnot(ptrue(x), trigonometric_common_lanes(x))))
    return {sin_function::apply(x), cos_function::apply(x)};
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

#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

}  // namespace detail
}  // namespace FUSEGRAD_MATH_NAMESPACE
}  // namespace fusegrad::math
#endif
