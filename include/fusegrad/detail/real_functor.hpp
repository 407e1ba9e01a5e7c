// detail/real_functor.hpp -- fusegrad's own element-wise Eigen functors on real numbers: what Eigen's traits need to
// know of them, and expressions of three operands.
//
// The kinked ops' VJPs (abs, relu, maximum, minimum, pow) pick between formulas by comparing values. Spelled with
// Eigen's comparisons, casts and selects, they would run one element at a time (Eigen 3.4 vectorises none of the
// three), and every comparison, cast and select would be an Eigen expression type of its own, which the compiler
// instantiates for every node and block length that meets it. As one functor each, whose packetOp compares and masks
// whole registers, they are vectorised and one expression type.
#pragma once

#include <type_traits>

#include <Eigen/Core>

namespace fusegrad::detail {

struct real_functor_base {};  // what Eigen's traits below recognise

/// The base of an element-wise functor on T with an operator() on one value and a packetOp on a register of values:
/// Eigen calls the packetOp for real T, where the packet functions it uses exist (Vectorised); complex numbers go one
/// at a time.
template <class T, bool Vectorised = true>
struct real_functor : real_functor_base {
  using scalar_type = T;
  static constexpr bool vectorised = Vectorised && std::is_floating_point_v<T>;
};

/// f(a, b, c) element-wise, for operands of one size: Eigen's expression of three operands.
template <class F, class A, class B, class C>
auto ternary_expr(const A& a, const B& b, const C& c, const F& f = F()) {
  return Eigen::CwiseTernaryOp<F, const A, const B, const C>(a, b, c, f);
}

}  // namespace fusegrad::detail

template <class F>
  requires std::is_base_of_v<fusegrad::detail::real_functor_base, F>
struct Eigen::internal::functor_traits<F> {
  enum { Cost = 4 * NumTraits<typename F::scalar_type>::AddCost, PacketAccess = F::vectorised };
};
