// expr/eval.hpp -- eval(expr): the value of a static expression, computed by the fused loops.
#pragma once

#include <type_traits>

#include <fusegrad/concepts.hpp>
#include <fusegrad/expr/storage.hpp>
#include <fusegrad/expr/sweep.hpp>
#include <fusegrad/expr/visit.hpp>

namespace fusegrad {

namespace detail {
// Sinks for a sweep that computes no gradient.
struct no_gradients {
  template <class L>
  typename L::value_type* sink_for(const L&) const noexcept {
    return nullptr;
  }
};

// result_t<E>: a scalar for rank-0 expressions, else the flat row-major array of its shape.
template <class E>
using result_t = std::conditional_t<std::is_same_v<typename E::static_shape, Shape<>>, typename E::value_type,
                                    storage_t<typename E::value_type, typename E::static_shape>>;

// Writes the values of `expr` (shaped `extents`) into `out`, row-major: fused loops. With `keep`, a materialised
// root hands over what its op saved for its VJPs (a tape node keeps it until its backward).
template <class E>
void evaluate_into(const E& expr, const Extents& extents, typename E::value_type* out,
                   saved_by_root_t<E>* keep = nullptr) {
  using S = typename E::static_shape;
  no_gradients sinks;
  sweep_state<E, S> state(expr, extents, sinks);
  state.forward();
  run_segment<S>(state, extents, store_values<typename E::value_type>{out});
  if constexpr (!std::is_same_v<saved_by_root_t<E>, nothing>)
    if (keep) *keep = state.take_saved();
}

template <class E, class Out>
Out flatten_result(const storage_t<typename E::value_type, typename E::static_shape>& values) {
  if constexpr (std::is_same_v<Out, typename E::value_type>)
    return values[0];
  else
    return values;
}
}  // namespace detail

/// The value of an expression: a scalar for rank-0 expressions, else a flat row-major
/// Eigen array of the expression's extents. Element-wise chains run as one fused loop.
/// Example: examples/static_gradient.cpp.
template <Differentiable E>
[[nodiscard]] auto eval(const E& expr) {
  using node = std::remove_cvref_t<E>;
  using T = typename node::value_type;
  using S = typename node::static_shape;
  if constexpr (!detail::one_scalar_type_v<node>) {
    return detail::result_t<node>{};  // after the one error of mixed scalar types, nothing that adds another
  } else {
    const Extents extents = expr.extents();
    auto out = make_storage<T, S>(extents);
    detail::evaluate_into(expr, extents, out.data());
    return detail::flatten_result<node, detail::result_t<node>>(out);
  }
}

}  // namespace fusegrad
