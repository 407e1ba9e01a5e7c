// expr/leaf_uses.hpp -- every leaf occurrence of an expression, and whether a materialised node's VJP writes that
// occurrence's gradient whole: what the static layer's var sinks and the tape's tensor sinks count before a sweep,
// so that such a VJP may write straight into a gradient that nothing else sends to.
#pragma once

#include <boost/hana/for_each.hpp>

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
