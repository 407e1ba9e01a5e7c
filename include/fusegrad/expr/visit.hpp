// expr/visit.hpp -- walking a static expression at run time: its leaves, and its text.
#pragma once

#include <sstream>
#include <string>
#include <tuple>
#include <type_traits>

#include <boost/mp11/algorithm.hpp>

#include <fusegrad/concepts.hpp>
#include <fusegrad/expr/binary_expr.hpp>
#include <fusegrad/expr/materialized_expr.hpp>
#include <fusegrad/expr/unary_expr.hpp>

namespace fusegrad {

namespace detail {
template <class E>
inline constexpr bool is_unary_expr_v = false;
template <class Op, class X>
inline constexpr bool is_unary_expr_v<unary_expr<Op, X>> = true;
}  // namespace detail

/// Calls f(leaf) for every leaf occurrence of an expression, left to right.
template <class E, class F>
void for_each_leaf(const E& e, F&& f) {
  if constexpr (E::kind == node_kind::leaf) {
    f(e);
  } else if constexpr (E::kind == node_kind::materialized) {
    std::apply([&](const auto&... a) { (for_each_leaf(a, f), ...); }, e.args);
  } else if constexpr (detail::is_unary_expr_v<E>) {
    for_each_leaf(e.x, f);
  } else {
    for_each_leaf(e.lhs, f);
    for_each_leaf(e.rhs, f);
  }
}

namespace detail {
// Text built by appending only: GCC 12 reports a false -Wrestrict at -O3 for `"(" + std::string&&`.
template <class... Parts>
std::string concat(const Parts&... parts) {
  std::string out;
  (out.append(parts), ...);
  return out;
}
}  // namespace detail

/// The expression as text, e.g. "sum(sin(a) * exp(-(a * a)))"; `leaf_name(leaf)` names leaves.
template <class E, class Name>
std::string describe(const E& e, Name&& leaf_name) {
  using detail::concat;
  if constexpr (E::kind == node_kind::leaf) {
    return leaf_name(e);
  } else if constexpr (E::kind == node_kind::materialized) {
    std::string out = concat(E::op::name, "(");
    bool first = true;
    std::apply(
        [&](const auto&... a) { ((out += concat(first ? "" : ", ", describe(a, leaf_name)), first = false), ...); },
        e.args);
    return out + ")";
  } else if constexpr (detail::is_unary_expr_v<E>) {
    if constexpr (E::op::name == std::string_view("negate"))
      return concat("-(", describe(e.x, leaf_name), ")");
    else
      return concat(E::op::name, "(", describe(e.x, leaf_name), ")");
  } else {
    constexpr std::string_view symbol = E::op::symbol;
    if constexpr (symbol == "max" || symbol == "min")
      return concat(E::op::name, "(", describe(e.lhs, leaf_name), ", ", describe(e.rhs, leaf_name), ")");
    else
      return concat("(", describe(e.lhs, leaf_name), " ", symbol, " ", describe(e.rhs, leaf_name), ")");
  }
}

/// How many operations an expression holds (leaves excluded).
template <class E>
constexpr std::size_t operation_count() {
  if constexpr (E::kind == node_kind::leaf) {
    return 0;
  } else if constexpr (E::kind == node_kind::materialized) {
    return []<class... Xs>(boost::mp11::mp_list<Xs...>) {
      return (std::size_t{1} + ... + operation_count<Xs>());
    }(typename E::operand_types{});
  } else if constexpr (detail::is_unary_expr_v<E>) {
    return 1 + operation_count<typename E::operand>();
  } else {
    return 1 + operation_count<typename E::lhs_type>() + operation_count<typename E::rhs_type>();
  }
}

namespace detail {
template <class E>
struct leaf_types_of;
}  // namespace detail

/// The leaf types of an expression, one per leaf occurrence, left to right (an mp_list).
template <class E>
using leaf_types_t = typename detail::leaf_types_of<E>::type;

namespace detail {
template <class E>
  requires(E::kind == node_kind::leaf)
struct leaf_types_of<E> {
  using type = boost::mp11::mp_list<E>;
};
template <class E>
  requires(E::kind == node_kind::materialized)
struct leaf_types_of<E> {
  using type =
      boost::mp11::mp_apply<boost::mp11::mp_append, boost::mp11::mp_transform<leaf_types_t, typename E::operand_types>>;
};
template <class E>
  requires(E::kind == node_kind::elementwise && is_unary_expr_v<E>)
struct leaf_types_of<E> {
  using type = leaf_types_t<typename E::operand>;
};
template <class E>
  requires(E::kind == node_kind::elementwise && !is_unary_expr_v<E>)
struct leaf_types_of<E> {
  using type = boost::mp11::mp_append<leaf_types_t<typename E::lhs_type>, leaf_types_t<typename E::rhs_type>>;
};

template <class L>
using takes_grad_t = std::bool_constant<L::takes_grad>;
}  // namespace detail

/// How many leaf occurrences an expression holds (a leaf used twice counts twice); with
/// OnlyGradLeaves, only those of leaves that take gradients (Var, Tensor; not Const).
template <class E, bool OnlyGradLeaves = false>
constexpr std::size_t leaf_count() {
  if constexpr (OnlyGradLeaves)
    return boost::mp11::mp_count_if<leaf_types_t<E>, detail::takes_grad_t>::value;
  else
    return boost::mp11::mp_size<leaf_types_t<E>>::value;
}

}  // namespace fusegrad
