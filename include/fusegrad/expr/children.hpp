// expr/children.hpp -- a node's children as a hana::tuple: how the generic walks over an expression (its leaves, its
// size, its graph as data, re-recording it) find them.
#pragma once

#include <tuple>
#include <type_traits>
#include <utility>

#include <boost/hana/tuple.hpp>
#include <boost/mp11/algorithm.hpp>
#include <boost/mp11/list.hpp>

#include <fusegrad/concepts.hpp>
#include <fusegrad/expr/binary_expr.hpp>
#include <fusegrad/expr/closure.hpp>
#include <fusegrad/expr/materialized_expr.hpp>
#include <fusegrad/expr/unary_expr.hpp>

namespace fusegrad {

namespace detail {
// Per node kind: the operand types as the node stores them, the operands themselves as a
// hana::tuple of const references, and the same kind of node, with the same op, over other
// operands (with_children). The generic walks go through here; the sweep (expr/sweep/), the linear-root walk
// (expr/grad.hpp, expr/linear_root.hpp) and the tape's one-op nodes (tape/flat_op.hpp) read a node's x, lhs, rhs or
// args themselves, so a new node kind is taught to them too.
template <class E>
struct children_of;

template <class E>
  requires(E::kind == node_kind::leaf)
struct children_of<E> {
  using stored = boost::mp11::mp_list<>;
  static constexpr auto get(const E&) { return boost::hana::tuple<>(); }
};
template <class Op, class X>
struct children_of<unary_expr<Op, X>> {
  using stored = boost::mp11::mp_list<X>;
  static constexpr auto get(const unary_expr<Op, X>& e) { return boost::hana::tuple<const node_t<X>&>(e.x); }
  template <class Y>
  static constexpr auto with_children(const unary_expr<Op, X>&, Y&& y) {
    return unary_expr<Op, std::remove_cvref_t<Y>>{std::forward<Y>(y)};
  }
};
template <class Op, class L, class R>
struct children_of<binary_expr<Op, L, R>> {
  using stored = boost::mp11::mp_list<L, R>;
  static constexpr auto get(const binary_expr<Op, L, R>& e) {
    return boost::hana::tuple<const node_t<L>&, const node_t<R>&>(e.lhs, e.rhs);
  }
  template <class A, class B>
  static constexpr auto with_children(const binary_expr<Op, L, R>&, A&& a, B&& b) {
    return binary_expr<Op, std::remove_cvref_t<A>, std::remove_cvref_t<B>>{std::forward<A>(a), std::forward<B>(b)};
  }
};
template <class Op, class... Xs>
struct children_of<materialized_expr<Op, Xs...>> {
  using stored = boost::mp11::mp_list<Xs...>;
  static constexpr auto get(const materialized_expr<Op, Xs...>& e) {
    return std::apply([](const auto&... x) { return boost::hana::tuple<const node_t<Xs>&...>(x...); }, e.args);
  }
  template <class... Ys>
  static constexpr auto with_children(const materialized_expr<Op, Xs...>& e, Ys&&... ys) {
    return materialized_expr<Op, std::remove_cvref_t<Ys>...>{
        std::tuple<std::remove_cvref_t<Ys>...>(std::forward<Ys>(ys)...), e.spec};
  }
};
}  // namespace detail

/// The operand types of node E as it stores them, left to right (a reference for an lvalue
/// leaf, a value otherwise): an mp_list, empty for a leaf.
template <class E>
using stored_children_t = typename detail::children_of<std::remove_cvref_t<E>>::stored;

/// The operand node types of E (stored_children_t without references): an mp_list.
template <class E>
using child_nodes_t = boost::mp11::mp_transform<detail::node_t, stored_children_t<E>>;

/// The operands of e, left to right, as a boost::hana::tuple of const references; empty
/// for a leaf. Walk them with hana::for_each, hana::fold, hana::unpack.
template <class E>
constexpr auto children(const E& e) {
  return detail::children_of<E>::get(e);
}

/// A node of e's kind and op (with the op's parameters) over other operands, held by value:
/// `with_children(e, a, b)`.
template <class E, class... Children>
constexpr auto with_children(const E& e, Children&&... c) {
  return detail::children_of<E>::with_children(e, std::forward<Children>(c)...);
}

}  // namespace fusegrad
