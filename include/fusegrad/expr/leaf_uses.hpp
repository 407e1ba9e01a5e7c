// expr/leaf_uses.hpp -- every leaf occurrence of an expression, and whether a materialised node's VJP writes that
// occurrence's gradient whole: what the static layer's var sinks and the tape's tensor sinks count before a sweep,
// so that such a VJP may write straight into a gradient that nothing else sends to.
#pragma once

#include <boost/hana/for_each.hpp>
#include <boost/mp11/list.hpp>

#include <fusegrad/concepts.hpp>
#include <fusegrad/expr/children.hpp>
#include <fusegrad/expr/materialized_expr.hpp>

namespace fusegrad::detail {

// Whether node E writes its operands' VJPs into arrays (materialized_operand): a materialised node not reduced
// inside the loop.
template <class E>
inline constexpr bool writes_operand_vjps_v = [] {
  if constexpr (E::kind == node_kind::materialized)
    return !LinearFullReduction<typename E::op>;
  else
    return false;
}();

// Whether expression E has a node that writes its operands' VJPs into arrays (writes_operand_vjps_v) with a leaf
// operand that takes a gradient: only then may a gradient be written in place (materialized_operand::sole_sink), and
// counting the leaves' uses for it pays.
template <class E>
constexpr bool has_leaf_operands() {
  if constexpr (E::kind == node_kind::leaf) {
    return false;
  } else {
    return []<class... Xs>(boost::mp11::mp_list<Xs...>) {
      constexpr bool here = writes_operand_vjps_v<E>;
      return ((here && Xs::kind == node_kind::leaf && Xs::takes_grad) || ...) || (has_leaf_operands<Xs>() || ...);
    }(child_nodes_t<E>{});
  }
}
template <class E>
inline constexpr bool has_leaf_operands_v = has_leaf_operands<E>();

// Calls f(leaf, whole) for every leaf occurrence below e, left to right. `whole`: a gradient reaches the occurrence
// (every node above it takes one), and it is an operand of a node that writes its operands' VJPs whole.
template <class E, class F>
void for_each_leaf_use(const E& e, F&& f, bool reached = true, bool operand = false) {
  if constexpr (E::kind == node_kind::leaf) {
    f(e, reached && operand);
  } else {
    const bool passes = reached && E::takes_grad;
    boost::hana::for_each(children(e),
                          [&](const auto& x) { for_each_leaf_use(x, f, passes, writes_operand_vjps_v<E>); });
  }
}

}  // namespace fusegrad::detail
