// detail/elementwise_functor.hpp -- fusegrad's own element-wise Eigen functors: what Eigen's traits need to know of
// them, and expressions of three operands.
//
// Eigen 3.4 vectorises no comparison, cast or select. An op spec that picks between formulas by comparing values (the
// comparisons themselves, the VJPs of abs, relu, maximum, minimum, pow) is therefore one functor, whose packetOp, where
// it has one, compares and masks whole registers: spelled with Eigen's comparisons it would run one element at a time,
// and each comparison, cast and select would be an Eigen expression type of its own, which the compiler instantiates
// for every node and block length that meets it.
#pragma once

#include <type_traits>

#include <Eigen/Core>

namespace fusegrad::detail {

struct elementwise_functor_base {};  // what Eigen's traits below recognise

/// The base of an element-wise functor on T, with an operator() on one value and, unless Vectorised is false, a
/// packetOp on a register of values, which Eigen calls for float and double (complex numbers, which eq and ne compare,
/// go one value at a time).
template <class T, bool Vectorised = true>
struct elementwise_functor : elementwise_functor_base {
  using scalar_type = T;
  static constexpr bool vectorised = Vectorised && std::is_floating_point_v<T>;
};

/// f(a, b, c) element-wise, for operands of one size: Eigen's expression of three operands.
template <class F, class A, class B, class C>
auto ternary_expr(const A& a, const B& b, const C& c, const F& f = F()) {
  return Eigen::CwiseTernaryOp<F, const A, const B, const C>(a, b, c, f);
}

}  // namespace fusegrad::detail

namespace Eigen::internal {
template <class F>
  requires std::is_base_of_v<fusegrad::detail::elementwise_functor_base, F>
struct functor_traits<F> {
  enum { Cost = 4 * NumTraits<typename F::scalar_type>::AddCost, PacketAccess = F::vectorised };
};
}  // namespace Eigen::internal
