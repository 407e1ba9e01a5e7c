// expr/closure.hpp -- how a node holds its operands: lvalue leaves by reference, the rest by value.
#pragma once

#include <type_traits>

#include <fusegrad/concepts.hpp>

namespace fusegrad::detail {

// A leaf that is a cheap handle (a Tensor) is copied like a temporary; other leaves own or
// view data and are referenced when they are lvalues.
template <class E>
inline constexpr bool is_handle_v = requires {
  requires E::is_handle;
};

// closure_t<E&&>: the member type a node uses for an operand passed as E&&. Lvalue leaves
// are held by const&, which is what lets `x` keep its address for value_and_grad(f, x);
// everything else (sub-expressions, temporaries, literals) is held by value, so an
// expression stored with `auto` never dangles (the bug Eigen documents for `auto`).
// A Var passed as an rvalue is refused: held by value it would be a copy that no
// value_and_grad(f, x) finds, and x's gradient would silently be zero.
template <class E>
struct closure {
  using node = std::remove_cvref_t<E>;
  static constexpr bool is_referenced_leaf = node::kind == node_kind::leaf && !is_handle_v<node>;
  static constexpr bool is_lvalue = std::is_lvalue_reference_v<E>;
  static_assert(!(is_referenced_leaf && GradLeaf<node> && !is_lvalue),
                "fusegrad: a Var passed as an rvalue (a temporary or std::move(x)) would be copied into the "
                "expression, where value_and_grad(f, x) cannot find x; pass the Var by name, or use a Const for "
                "values that take no gradient");
  using type = std::conditional_t<is_referenced_leaf && is_lvalue, const node&, node>;
};
template <class E>
using closure_t = typename closure<E>::type;

// node_t<C>: the node type behind a closure member.
template <class C>
using node_t = std::remove_cvref_t<C>;

}  // namespace fusegrad::detail
