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
template <class E>
using closure_t = std::conditional_t<std::is_lvalue_reference_v<E> && std::remove_cvref_t<E>::kind == node_kind::leaf &&
                                         !is_handle_v<std::remove_cvref_t<E>>,
                                     const std::remove_cvref_t<E>&, std::remove_cvref_t<E>>;

// node_t<C>: the node type behind a closure member.
template <class C>
using node_t = std::remove_cvref_t<C>;

}  // namespace fusegrad::detail
