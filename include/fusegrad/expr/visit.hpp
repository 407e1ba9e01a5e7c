// expr/visit.hpp -- walking a static expression: its leaves and its size (its text and pictures:
// expr/expression_graph.hpp). Each walk here finds a node's children through children() (expr/children.hpp), so none
// of them knows how a node kind stores them.
#pragma once

#include <cstddef>
#include <type_traits>

#include <boost/hana/for_each.hpp>
#include <boost/hana/tuple.hpp>
#include <boost/mp11/algorithm.hpp>

#include <fusegrad/concepts.hpp>
#include <fusegrad/expr/children.hpp>
#include <fusegrad/expr/unary_expr.hpp>

namespace fusegrad {

/// Calls f(leaf) for every leaf occurrence of an expression, left to right.
template <class E, class F>
void for_each_leaf(const E& e, F&& f) {
  if constexpr (E::kind == node_kind::leaf)
    f(e);
  else
    boost::hana::for_each(children(e), [&](const auto& x) { for_each_leaf(x, f); });
}

/// Calls f(leaf) for every leaf occurrence a gradient can reach: below nodes that take one,
/// not below a comparison (whose node takes none), left to right.
template <class E, class F>
void for_each_leaf_taking_grad(const E& e, F&& f) {
  if constexpr (!E::takes_grad)
    return;
  else if constexpr (E::kind == node_kind::leaf)
    f(e);
  else
    boost::hana::for_each(children(e), [&](const auto& x) { for_each_leaf_taking_grad(x, f); });
}

/// Whether every op of expression E passes gradients (none is a comparison): then a gradient
/// reaches every leaf that takes one, and for_each_leaf_taking_grad visits what for_each_leaf does.
template <class E>
constexpr bool passes_gradients_everywhere() {
  if constexpr (E::kind == node_kind::leaf)
    return true;
  else if constexpr (!is_differentiable_op_v<typename E::op>)
    return false;
  else
    return []<class... Xs>(boost::mp11::mp_list<Xs...>) {
      return (passes_gradients_everywhere<Xs>() && ...);
    }(child_nodes_t<E>{});
}

namespace detail {
// Declared in expr/binary_expr.hpp, whose extents() skips such an operand beside a wider one.
template <class E>
constexpr bool extents_only_read() {
  if constexpr (E::kind == node_kind::materialized)
    return false;
  else
    return
        []<class... Xs>(boost::mp11::mp_list<Xs...>) { return (extents_only_read<Xs>() && ...); }(child_nodes_t<E>{});
}

// Declared in expr/binary_expr.hpp: a leaf of static shape; a materialised node of static shape, which compares its
// operands' extents itself where it is evaluated; an element-wise node whose operands are all such.
template <class E>
constexpr bool extents_fixed_statically() {
  if constexpr (E::kind != node_kind::elementwise)
    return static_size_v<typename E::static_shape> != dyn;
  else
    return []<class... Xs>(boost::mp11::mp_list<Xs...>) {
      return (extents_fixed_statically<Xs>() && ...);
    }(child_nodes_t<E>{});
}

// Whether a materialised node (a reduction, a matmul, an einsum ...) is anywhere in E.
template <class E>
constexpr bool has_materialized_node() {
  if constexpr (E::kind == node_kind::leaf)
    return false;
  else if constexpr (E::kind == node_kind::materialized)
    return true;
  else
    return []<class... Xs>(boost::mp11::mp_list<Xs...>) {
      return (has_materialized_node<Xs>() || ...);
    }(child_nodes_t<E>{});
}

// Calls extents() on every materialised node below e, whose own extents() the caller has: each checks its operands'
// shapes (shape_error, value_error). The root's extents() need not reach them (binary_expr skips an operand of
// static size, such as a full reduction), and an evaluation would: where a value is deferred, this reports at
// recording what the evaluation would have reported. Element-wise nodes check nothing else at run time that the
// root's extents() leaves out: it skips only operands whose extents are fixed statically (extents_fixed_statically).
template <class E>
void check_materialized_extents_below(const E& e) {
  if constexpr (E::kind != node_kind::leaf)
    boost::hana::for_each(children(e), [](const auto& x) {
      using X = std::remove_cvref_t<decltype(x)>;
      if constexpr (has_materialized_node<X>()) {
        if constexpr (X::kind == node_kind::materialized) (void)x.extents();
        check_materialized_extents_below(x);
      }
    });
}

}  // namespace detail

/// How many operations an expression holds (leaves excluded).
template <class E>
constexpr std::size_t operation_count() {
  return []<class... Xs>(boost::mp11::mp_list<Xs...>) {
    return (std::size_t{E::kind == node_kind::leaf ? 0u : 1u} + ... + operation_count<Xs>());
  }(child_nodes_t<E>{});
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
struct leaf_types_of {
  using type = boost::mp11::mp_apply<
      boost::mp11::mp_append,
      boost::mp11::mp_push_front<boost::mp11::mp_transform<leaf_types_t, child_nodes_t<E>>, boost::mp11::mp_list<>>>;
};
template <class E>
  requires(E::kind == node_kind::leaf)
struct leaf_types_of<E> {
  using type = boost::mp11::mp_list<E>;
};

template <class L>
using takes_grad_t = std::bool_constant<L::takes_grad>;

// How many types of an mp_list satisfy P, counted in a loop: mp_count_if is a fold expression,
// and clang refuses a fold of more than 256 operands, fewer than a large graph has leaves.
template <template <class> class P, class... Ts>
constexpr std::size_t count_types_if(boost::mp11::mp_list<Ts...>) {
  constexpr bool satisfies[] = {false, bool(P<Ts>::value)...};
  std::size_t count = 0;
  for (const bool s : satisfies) count += s;
  return count;
}
template <class List, template <class> class P>
inline constexpr std::size_t count_types_if_v = count_types_if<P>(List{});

template <class T>
struct has_value_type {
  template <class L>
  using fn = std::is_same<typename L::value_type, T>;
};

// Whether every leaf of E has E's scalar type. Where one does not, the node that mixes them has already reported it
// (common_value_type.hpp); eval and value_and_grad then compile nothing more, whose Eigen code would add errors.
template <class E>
inline constexpr bool one_scalar_type_v =
    count_types_if_v<leaf_types_t<E>, has_value_type<typename E::value_type>::template fn> ==
    boost::mp11::mp_size<leaf_types_t<E>>::value;
}  // namespace detail

/// How many leaf occurrences an expression holds (a leaf used twice counts twice); with
/// OnlyGradLeaves, only those of leaves that take gradients (Var, Tensor; not Const).
template <class E, bool OnlyGradLeaves = false>
constexpr std::size_t leaf_count() {
  if constexpr (OnlyGradLeaves)
    return detail::count_types_if_v<leaf_types_t<E>, detail::takes_grad_t>;
  else
    return boost::mp11::mp_size<leaf_types_t<E>>::value;
}

}  // namespace fusegrad
