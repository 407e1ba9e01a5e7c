// expr/sweep/block_values.hpp -- a block's values and gradients as Eigen expressions: how deep they may nest before
// they are evaluated, what they are (one value repeated, a negation, memory), and how they are stored and added.
#pragma once

#include <algorithm>
#include <type_traits>
#include <utility>

#include <Eigen/Core>

#include <fusegrad/expr/storage.hpp>

namespace fusegrad::detail {

template <class T, int N>
using const_block_map = Eigen::Map<const Eigen::Array<T, N, 1>>;

// lazy_depth_v<D>: how many levels of class templates over types the Eigen expression type D
// nests (its functors count; an array, a map, or any template with a value parameter is 0).
// A block's values and gradients pass from node to node as lazy expressions, so that a chain
// compiles to one Eigen loop. Every node instantiates its own expression type, and each names
// all the types below it, so a chain of n ops costs the compiler n^2; past max_lazy_depth a
// frame evaluates the expression into a block instead (a store that stays in L1), which keeps
// deep chains linear and leaves the usual short ones untouched.
template <class D>
struct lazy_depth : std::integral_constant<int, 0> {};
template <template <class...> class Expr, class... Args>
struct lazy_depth<Expr<Args...>>
    : std::integral_constant<int, 1 + std::max({0, lazy_depth<std::remove_cv_t<Args>>::value...})> {};
template <class D>
inline constexpr int lazy_depth_v = lazy_depth<std::remove_cvref_t<D>>::value;
inline constexpr int max_lazy_depth = 8;

// bounded_lazy<T, N>(d): d itself, or d evaluated into a block of N values when it nests past
// max_lazy_depth. Used on the expression passed to an operand's backward; the result lives
// until the end of the full expression that calls it.
template <class T, int N, class D>
[[gnu::always_inline]] inline decltype(auto) bounded_lazy(D&& d) {
  if constexpr (constexpr int depth = lazy_depth_v<D>; depth > max_lazy_depth)
    return block_t<T, N>(d);
  else
    return std::forward<D>(d);
}

// is_repeated_value_v<D>: D is one value repeated (a uniform upstream, Array::Constant).
template <class D>
inline constexpr bool is_repeated_value_v = false;
template <class Scalar, class Plain>
inline constexpr bool is_repeated_value_v<Eigen::CwiseNullaryOp<Eigen::internal::scalar_constant_op<Scalar>, Plain>> =
    true;

// is_uniform_expression_v<D>: every element of D is the same value, because D is built only from repeated values
// (the upstream below a full sum, -dy, dy * c): its first coefficient is all of it.
template <class D>
inline constexpr bool is_uniform_expression_v = is_repeated_value_v<D>;
template <class Op, class X>
inline constexpr bool is_uniform_expression_v<Eigen::CwiseUnaryOp<Op, X>> =
    is_uniform_expression_v<std::remove_cv_t<X>>;
template <class Op, class X, class Y>
inline constexpr bool is_uniform_expression_v<Eigen::CwiseBinaryOp<Op, X, Y>> =
    is_uniform_expression_v<std::remove_cv_t<X>>&& is_uniform_expression_v<std::remove_cv_t<Y>>;

// has_uniform_factor_v<D>: D is a product of real values in which some factor is uniform and the whole is not, such
// as a scalar's gradient below a scaled upstream: (2 dy) z, or (dy r) (-1). The lanes that sum a single value's
// gradient then add up the rest of the product (factored_core) and multiply by the uniform factors (uniform_factor)
// once, after the loop (add_to_lanes); a node that hands D to both its operands, where every gradient below goes to
// such lanes (gradient_target), evaluates only the rest. The total is then u times a sum, rounded once, not a sum of
// rounded products; at an infinite u it is +-inf where the sum of products would be NaN (the README's limitations).
template <class D>
inline constexpr bool has_uniform_factor_v = false;
template <class S, class L, class R>
constexpr bool product_has_uniform_factor() {
  constexpr bool lhs_uniform = is_uniform_expression_v<L>, rhs_uniform = is_uniform_expression_v<R>;
  if constexpr (!std::is_floating_point_v<S> || (lhs_uniform && rhs_uniform))
    return false;
  else
    return lhs_uniform || rhs_uniform || has_uniform_factor_v<L> || has_uniform_factor_v<R>;
}
template <class S, class L, class R>
inline constexpr bool has_uniform_factor_v<Eigen::CwiseBinaryOp<Eigen::internal::scalar_product_op<S, S>, L, R>> =
    product_has_uniform_factor<S, std::remove_cv_t<L>, std::remove_cv_t<R>>();

// D without its uniform factors, and their product.
template <class D>
[[gnu::always_inline]] inline decltype(auto) factored_core(const D& d) {
  if constexpr (!has_uniform_factor_v<D>)
    return (d);
  else if constexpr (is_uniform_expression_v<std::remove_cvref_t<decltype(d.lhs())>>)
    return factored_core(d.rhs());
  else if constexpr (is_uniform_expression_v<std::remove_cvref_t<decltype(d.rhs())>>)
    return factored_core(d.lhs());
  else
    return factored_core(d.lhs()) * factored_core(d.rhs());
}
template <class D>
[[gnu::always_inline]] inline typename D::Scalar uniform_factor(const D& d) {
  if constexpr (!has_uniform_factor_v<D>)
    return typename D::Scalar(1);
  else if constexpr (is_uniform_expression_v<std::remove_cvref_t<decltype(d.lhs())>>)
    return d.lhs().coeff(0) * uniform_factor(d.rhs());
  else if constexpr (is_uniform_expression_v<std::remove_cvref_t<decltype(d.rhs())>>)
    return uniform_factor(d.lhs()) * d.rhs().coeff(0);
  else
    return uniform_factor(d.lhs()) * uniform_factor(d.rhs());
}

// is_negation_v<D>: D is -x, an Eigen negation (sub's gradient of its right operand). Added to an
// accumulator, x is subtracted instead (add_gradient): acc - a * b is then one fused multiply-subtract,
// where acc + -(a * b) takes a negation and an addition besides the product.
template <class D>
inline constexpr bool is_negation_v = false;
template <class Scalar, class X>
inline constexpr bool is_negation_v<Eigen::CwiseUnaryOp<Eigen::internal::scalar_opposite_op<Scalar>, X>> = true;

// target += dy, a negated dy subtracted (is_negation_v).
template <class Target, class D>
[[gnu::always_inline]] inline void add_gradient(Target&& target, const D& dy) {
  if constexpr (is_negation_v<D>)
    target -= dy.nestedExpression();
  else
    target += dy;
}

// is_in_memory_v<D>: D already sits in memory, an array or a map.
template <class D>
inline constexpr bool is_in_memory_v =
    std::is_base_of_v<Eigen::PlainObjectBase<std::remove_cv_t<D>>, std::remove_cv_t<D>> ||
    std::is_base_of_v<Eigen::MapBase<std::remove_cv_t<D>, Eigen::ReadOnlyAccessors>, std::remove_cv_t<D>>;

// A block already in memory is read where it is: g++ would copy it with stores narrower than the loads that read the
// copy back, and such loads cannot take their data from those stores, so each waits for them.
template <int N, class T, class D>
[[gnu::always_inline]] inline decltype(auto) block_values(const D& v) {
  if constexpr (is_in_memory_v<D>)
    return (v);
  else
    return block_t<T, N>(v);
}

// out[0, N) = v, out[0, N) += dy (a negated dy subtracted), with stores of T rather than Eigen's packet stores: those
// may alias any object, so after one the compiler reloads every pointer and step the next block reads from the
// sweep's state; a store of T cannot change them, and they stay in registers. The compiler makes packets of the
// loops again.
template <int N, class T, class D>
[[gnu::always_inline]] inline void store_block(T* out, const D& v) {
  const auto& b = block_values<N, T>(v);
  for (int k = 0; k < N; ++k) out[k] = b[k];
}
template <int N, class T, class D>
[[gnu::always_inline]] inline void add_block(T* out, const D& dy) {
  if constexpr (is_negation_v<D>) {
    const auto& b = block_values<N, T>(dy.nestedExpression());
    for (int k = 0; k < N; ++k) out[k] -= b[k];
  } else {
    const auto& b = block_values<N, T>(dy);
    for (int k = 0; k < N; ++k) out[k] += b[k];
  }
}

// is_evaluated_v<D>: D already sits in memory (is_in_memory_v), or is one value repeated, so reading it twice
// is free. A repeated value is never stored into a block: Eigen fills a block with a constant through
// std::fill_n, which the compiler vectorises at its own preferred width (256 bits on AVX-512 machines), and the
// 512-bit loads that read it back cannot take their data from two stores, so each block would stall on it.
template <class D>
inline constexpr bool is_evaluated_v = is_in_memory_v<D> || is_repeated_value_v<std::remove_cv_t<D>>;

}  // namespace fusegrad::detail
