// expr/analytic.hpp -- whether an expression is analytic: what lets fg::gradcheck use the complex step on it.
#pragma once

#include <string_view>

#include <boost/mp11/list.hpp>

#include <fusegrad/concepts.hpp>
#include <fusegrad/expr/children.hpp>

namespace fusegrad {

/// Whether an op spec is analytic (complex-differentiable) wherever it is defined. An op
/// spec with a kink or a comparison (abs, relu, maximum) says `static constexpr bool
/// analytic = false;`; the others need not say anything.
template <class Op>
inline constexpr bool is_analytic_op_v = [] {
  if constexpr (requires { Op::analytic; })
    return bool(Op::analytic);
  else
    return true;
}();

/// The name of the first op of expression E, in pre-order, that is not analytic; empty when
/// every op is.
template <class E>
constexpr std::string_view first_non_analytic_op() {
  if constexpr (E::kind == node_kind::leaf) {
    return {};
  } else if constexpr (!is_analytic_op_v<typename E::op>) {
    return E::op::name;
  } else {
    return []<class... Xs>(boost::mp11::mp_list<Xs...>) {
      std::string_view found;
      ((found = found.empty() ? first_non_analytic_op<Xs>() : found), ...);
      return found;
    }(child_nodes_t<E>{});
  }
}

/// Whether every op of expression E is analytic.
template <class E>
inline constexpr bool is_analytic_v = first_non_analytic_op<E>().empty();

}  // namespace fusegrad
