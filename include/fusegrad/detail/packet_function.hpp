// detail/packet_function.hpp -- element-wise functions as Eigen functors on SIMD registers (packets): the setting
// FUSEGRAD_SIMD_MATH, the functor that hands Eigen's registers to a function, and lanes taken one at a time.
#pragma once

#include <concepts>
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

// fusegrad::math's functions (here, detail/xsimd_functions.hpp, detail/vector_math.hpp) differ with
// FUSEGRAD_SIMD_MATH: an inline namespace per setting keeps translation units built with different settings from
// sharing (and silently mixing) their definitions.
#if FUSEGRAD_SIMD_MATH
#define FUSEGRAD_MATH_NAMESPACE with_xsimd
#else
#define FUSEGRAD_MATH_NAMESPACE with_eigen
#endif

namespace fusegrad::math {
inline namespace FUSEGRAD_MATH_NAMESPACE {
namespace detail {

// Eigen's packet types carry vector attributes that g++ and clang drop, with a warning, when the types
// are template arguments; Eigen silences the same warning in its own headers.
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wignored-attributes"
#endif

// The base of every functor of fusegrad::math: Eigen's traits of these functors say they have a packetOp.
struct packet_function_base {};

// A function whose apply(packet) first tests every lane for its common case (exp: a normal result; sin: |x| up to
// 20 pi, not next to a multiple of pi/2) and, where all lanes pass, runs common(packet). For one value the test is a
// comparison of that value, not a reduction over a register's lanes, which costs a scalar function call a chain of
// latencies.
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

#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

}  // namespace detail
}  // namespace FUSEGRAD_MATH_NAMESPACE
}  // namespace fusegrad::math

namespace Eigen::internal {
template <class Function>
  requires std::is_base_of_v<fusegrad::math::detail::packet_function_base, Function>
struct functor_traits<Function> {
  enum { Cost = 30 * NumTraits<double>::MulCost, PacketAccess = true };
};
}  // namespace Eigen::internal
