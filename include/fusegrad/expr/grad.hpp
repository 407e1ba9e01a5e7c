// expr/grad.hpp -- value_and_grad, grad and vjp: the fused reverse sweep of a static expression.
#pragma once

#include <cstddef>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include <fusegrad/concepts.hpp>
#include <fusegrad/detail/after_error.hpp>
#include <fusegrad/expr/grad_mistakes.hpp>
#include <fusegrad/expr/leaf.hpp>
#include <fusegrad/expr/linear_root.hpp>
#include <fusegrad/expr/storage.hpp>
#include <fusegrad/expr/sweep.hpp>
#include <fusegrad/expr/var_sinks.hpp>
#include <fusegrad/expr/visit.hpp>
#include <fusegrad/shape/eigen_extents.hpp>

namespace fusegrad {

namespace detail {

// Where the sweep is compiled. For a graph whose leaves all hold one value (a scalar loss of scalars), routing each
// leaf's gradient to its var costs as much as the sweep, unless the compiler sees which leaf is
// which var: in the caller. So value_and_grad and the sweep's drivers (reverse_sweep,
// sweep_back, reduce_and_sweep, run_segment) are always inlined, and such a graph is swept in
// the caller; any other graph goes through value_and_grad_shared, one function per expression
// type, whose call its loops dwarf. (A root over several reductions sweeps each in a function of
// its own: reduce_and_sweep_apart.)
template <class L>
using holds_one_value = std::bool_constant<holds_one_value_v<L>>;
template <class E>
inline constexpr bool one_element_graph_v =
    count_types_if_v<leaf_types_t<E>, holds_one_value> == boost::mp11::mp_size<leaf_types_t<E>>::value;

template <LinearRoot E, class Sinks>
[[gnu::noinline]] typename E::value_type reduce_and_sweep_apart(const E& expr, Sinks& sinks,
                                                                typename E::value_type upstream);

// The reverse sweep of a sum or mean of an element-wise chain from ONE upstream value:
// the chain's upstream is known before its values are, so forward and reverse share one
// loop, each block evaluated and differentiated in one visit. Returns the root's value. A
// linear root above such reductions (-sum(f), 0.5 * mean(g) + c * sum(h)) hands each of them
// the upstream its linear ops give, so every chain is still swept once.
template <LinearRoot E, class Sinks>
[[gnu::always_inline]] inline typename E::value_type reduce_and_sweep(const E& expr, Sinks& sinks,
                                                                      typename E::value_type upstream) {
  using T = typename E::value_type;
  if constexpr (E::kind == node_kind::materialized) {
    using X = node_t<std::tuple_element_t<0, decltype(expr.args)>>;
    const X& chain = std::get<0>(expr.args);
    const Extents& chain_extents = chain.extents();  // a leaf's own, or a temporary kept alive
    const T divisor = E::op::template divisor<T>(chain_extents.size());
    sweep_state<X, typename X::static_shape> state(chain, chain_extents, sinks);
    state.forward();
    const T seed = upstream / divisor;
    segment_access<T, Shape<>, typename X::static_shape> up(&seed, Extents{}, chain_extents, nullptr);
    up.load();
    T total(0);
    run_segment<typename X::static_shape>(state, chain_extents, sum_values<T>{&total}, &up);
    state.finish();
    return total / divisor;
  } else if constexpr (std::is_same_v<typename E::op, negate_op>) {
    return -reduce_and_sweep(expr.x, sinks, -upstream);
  } else {
    using Op = typename E::op;
    constexpr bool lhs_is_root = LinearRoot<node_t<decltype(expr.lhs)>>;
    constexpr bool rhs_is_root = LinearRoot<node_t<decltype(expr.rhs)>>;
    const auto number = [](const auto& leaf) { return T(leaf.data()[0]); };
    if constexpr (std::is_same_v<Op, add_op> || std::is_same_v<Op, sub_op>) {
      constexpr bool minus = std::is_same_v<Op, sub_op>;
      const T right_upstream = minus ? -upstream : upstream;
      T left(0), right(0);
      if constexpr (lhs_is_root && rhs_is_root && !one_element_graph_v<E>) {
        left = reduce_and_sweep_apart(expr.lhs, sinks, upstream);
        right = reduce_and_sweep_apart(expr.rhs, sinks, right_upstream);
      } else {
        if constexpr (lhs_is_root)
          left = reduce_and_sweep(expr.lhs, sinks, upstream);
        else
          left = number(expr.lhs);
        if constexpr (rhs_is_root)
          right = reduce_and_sweep(expr.rhs, sinks, right_upstream);
        else
          right = number(expr.rhs);
      }
      return minus ? left - right : left + right;
    } else if constexpr (std::is_same_v<Op, mul_op>) {
      if constexpr (lhs_is_root) {
        const T c = number(expr.rhs);
        return reduce_and_sweep(expr.lhs, sinks, upstream * c) * c;
      } else {
        const T c = number(expr.lhs);
        return c * reduce_and_sweep(expr.rhs, sinks, c * upstream);
      }
    } else {  // r / c
      const T c = number(expr.rhs);
      return reduce_and_sweep(expr.lhs, sinks, upstream / c) / c;
    }
  }
}

// One of several reductions under a root (0.5 * mean(e * e) + 0.01 * sum(w * w)), swept in a function of its own.
// Inlined side by side, the reductions' loops share one function's registers, and g++ keeps some of their
// accumulators in memory (benchmarks/results/linear-roots.md).
template <LinearRoot E, class Sinks>
[[gnu::noinline]] typename E::value_type reduce_and_sweep_apart(const E& expr, Sinks& sinks,
                                                                typename E::value_type upstream) {
  return reduce_and_sweep(expr, sinks, upstream);
}

// The reverse sweep from `upstream` (shaped like the root, or a single value); the root's
// values, shaped `extents`, go to consume(block, offset) (store_values, discard_values).
template <class E, class Sinks, class U, class Consume>
[[gnu::always_inline]] inline void sweep_back(const E& expr, const Extents& extents, Sinks& sinks, const U& upstream,
                                              const Extents& upstream_extents, Consume&& consume) {
  using T = typename E::value_type;
  using S = typename E::static_shape;
  sweep_state<E, S> state(expr, extents, sinks);
  state.forward();
  const T* up_values;
  if constexpr (std::is_same_v<U, T>)
    up_values = &upstream;
  else
    up_values = upstream.data();
  // A single upstream value has a static shape, which keeps this access free of run-time checks.
  using upstream_shape = std::conditional_t<std::is_same_v<U, T>, Shape<>, AnyShape>;
  segment_access<T, upstream_shape, S> up(up_values, upstream_extents, extents, nullptr);
  up.load();
  run_segment<S>(state, extents, std::forward<Consume>(consume), &up);
  state.finish();
}

// The reverse sweep of a materialised root from an upstream shaped like it, whose values no one
// reads (a tape node's backward): the root's own value is computed only if its VJPs read it.
// `kept` is what the root's op saved when its value was computed (evaluate_into's `keep`), if anything.
template <class E, class Sinks>
  requires(E::kind == node_kind::materialized)
inline void sweep_back_from_root(const E& expr, const Extents& extents, Sinks& sinks,
                                 const typename E::value_type* upstream, saved_by_root_t<E>* kept = nullptr) {
  sweep_state<E, typename E::static_shape> state(expr, extents, sinks);
  state.backward_from(upstream, kept);
}

// The reverse sweep, returning the root's values (a storage_t of the root's shape).
template <class E, class Sinks, class U>
[[gnu::always_inline]] inline auto reverse_sweep(const E& expr, Sinks& sinks, const U& upstream,
                                                 const Extents& upstream_extents) {
  using T = typename E::value_type;
  using S = typename E::static_shape;
  if constexpr (LinearRoot<E> && std::is_same_v<U, T>) {
    if constexpr (reduction_count<E>() > 1) check_reductions_fit(expr);
    storage_t<T, S> out = storage_t<T, S>::Constant(1, reduce_and_sweep(expr, sinks, upstream));  // one value
    return out;
  } else {
    const Extents extents = expr.extents();
    auto out = make_storage<T, S>(extents);
    sweep_back(expr, extents, sinks, upstream, upstream_extents, store_values<T>{out.data()});
    return out;
  }
}

// value_and_grad's work: inlined into value_and_grad_shared, or into the caller.
template <class E, class... Vars>
[[gnu::always_inline]] inline auto value_and_grad_body(const E& f, const Vars&... vars) {
  using T = typename E::value_type;
  if constexpr (std::is_same_v<typename E::static_shape, AnyShape>) {
    if (f.extents().size() != 1)
      throw shape_error("fusegrad::value_and_grad and grad(f, vars...): f has shape " + f.extents().to_string() +
                        ", not a scalar; reduce it or use fusegrad::vjp(f, upstream, vars...)");
  }
  var_sinks<Vars...> sinks(vars...);
  sinks.start(f);
  const auto value = reverse_sweep(f, sinks, T(1), Extents{});
  return [&]<std::size_t... I>(std::index_sequence<I...>) {
    return std::tuple<T, grad_t<Vars>...>(value[0], sinks.template result<I>()...);
  }
  (std::index_sequence_for<Vars...>{});
}

template <class E, class... Vars>
auto value_and_grad_shared(const E& f, const Vars&... vars) {
  return value_and_grad_body(f, vars...);
}

// Whether E may be a scalar, the f of a gradient: a static shape of one element, or a shape only run time knows.
template <class E>
inline constexpr bool scalar_shaped_v = std::is_same_v<typename E::static_shape, AnyShape> || holds_one_value_v<E>;

// Whether every var has E's scalar type (vacuously when some is no var: another assertion reports that).
template <class E, class... Vars>
constexpr bool vars_have_scalar_type_of() {
  if constexpr ((is_variable_v<Vars> && ...))
    return (std::is_same_v<typename Vars::value_type, typename E::value_type> && ...);
  else
    return true;
}

}  // namespace detail

/// The value of a scalar expression and its gradient with respect to each var, in one
/// fused reverse sweep: `auto [v, dx, dy] = fg::value_and_grad(f, x, y);`. Each gradient
/// holds its var's values in row-major order, as one column (a scalar for Shape<> vars). No tape; for static shapes up
/// to 16 KiB (max_fixed_bytes), no heap. Example: examples/static_gradient.cpp.
template <Differentiable E, class... Vars>
[[nodiscard, gnu::always_inline]] inline auto value_and_grad(const E& f, const Vars&... vars) {
  using node = std::remove_cvref_t<E>;
  // One rule at a time, each assertion only where those before it hold: one diagnostic per mistake.
  constexpr bool named = sizeof...(Vars) > 0;
  constexpr bool no_tensor = !(detail::is_handle_v<Vars> || ...);  // a handle is a Tensor (closure.hpp)
  constexpr bool all_vars = (detail::is_variable_v<Vars> && ...);
  constexpr bool one_type = detail::vars_have_scalar_type_of<node, Vars...>();
  constexpr bool scalar = detail::scalar_shaped_v<node>;
  static_assert(named, "fusegrad::value_and_grad and grad(f, vars...): name at least one var");
  static_assert(
      !named || no_tensor,
      "fusegrad::value_and_grad and grad(f, vars...): a Tensor is differentiated on the tape: fg::Tensor loss = f; "
      "loss.backward(); then w.grad() (or fg::grad(loss, {w}))");
  // The conditions name the types, so that the diagnostic's note shows the one that fails.
  static_assert(
      !(named && no_tensor) || (detail::is_variable_v<Vars> && ...),
      "fusegrad::value_and_grad and grad(f, vars...): every var must be a fusegrad::Var (the expression comes "
      "first); a Const or an expression takes no gradient");
  // f of mixed scalar types has reported it where it mixes them (common_value_type.hpp): nothing more is said of it.
  constexpr bool f_one_type = detail::one_scalar_type_v<node>;
  static_assert(
      !(named && all_vars && f_one_type) || detail::vars_have_scalar_type_of<node, Vars...>(),
      "fusegrad::value_and_grad and grad(f, vars...): every var must have f's scalar type; f cannot hold a var of "
      "another type, so its gradient would be zero");
  static_assert(
      !(named && all_vars && f_one_type && one_type) || detail::scalar_shaped_v<node>,
      "fusegrad::value_and_grad and grad(f, vars...): f is not a scalar; reduce it (fg::sum, fg::mean) or pass "
      "an upstream gradient with fusegrad::vjp(f, upstream, vars...)");
  if constexpr (!(named && all_vars && f_one_type && one_type && scalar)) {
    // After the diagnostic, a tuple the caller's structured binding can take apart, so that it adds no error.
    return std::tuple<double, detail::gradient_after_error<Vars>...>{};
  } else if constexpr (detail::one_element_graph_v<node>) {
    return detail::value_and_grad_body(f, vars...);
  } else {
    return detail::value_and_grad_shared(f, vars...);
  }
}

/// The gradient of a scalar expression with respect to one var, or a tuple of gradients
/// for several: `auto dx = fg::grad(f, x);`, `auto [dx, dy] = fg::grad(f, x, y);`.
template <Differentiable E, class... Vars>
[[nodiscard, gnu::always_inline]] inline auto grad(const E& f, const Vars&... vars) {
  auto all = value_and_grad(f, vars...);
  if constexpr (sizeof...(Vars) == 1) {
    return std::get<1>(std::move(all));
  } else {
    return [&]<std::size_t... I>(std::index_sequence<I...>) {
      return std::tuple<std::tuple_element_t<I + 1, decltype(all)>...>(std::get<I + 1>(std::move(all))...);
    }
    (std::index_sequence_for<Vars...>{});
  }
}

/// The vector-Jacobian product of any expression: its value (flat, row-major) and the
/// gradient of `sum(upstream * f)` with respect to each var. `upstream` is a single value (broadcast; an Eigen object
/// of one element too), an Eigen vector of f's values flat in row-major order, or a matrix or 2-D array of f's shape
/// (the rule for Eigen input, shape/eigen_extents.hpp). Example: tests/expr/vjp_test.cpp.
template <Differentiable E, class Upstream, class... Vars>
[[nodiscard]] auto vjp(const E& f, const Upstream& upstream, const Vars&... vars) {
  using node = std::remove_cvref_t<E>;
  using T = typename node::value_type;
  // One rule at a time, each assertion only where those before it hold: one diagnostic per mistake.
  constexpr bool upstream_first = !detail::is_variable_v<Upstream>;
  constexpr bool all_vars = (detail::is_variable_v<Vars> && ...);
  constexpr bool one_type = detail::vars_have_scalar_type_of<node, Vars...>();
  constexpr bool upstream_kind = std::is_convertible_v<Upstream, T> || detail::dense_eigen_object<Upstream>;
  static_assert(upstream_first,
                "fusegrad::vjp(f, upstream, vars...): the second argument is the upstream gradient, the vars come "
                "after it: fg::vjp(f, 1.0, x)");
  static_assert(!upstream_first || (detail::is_variable_v<Vars> && ...),
                "fusegrad::vjp(f, upstream, vars...): every var must be a fusegrad::Var; a Const or an expression "
                "takes no gradient");
  constexpr bool f_one_type = detail::one_scalar_type_v<node>;  // or reported where f mixes them
  static_assert(!(upstream_first && all_vars && f_one_type) || one_type,
                "fusegrad::vjp(f, upstream, vars...): every var must have f's scalar type; f cannot hold a var of "
                "another type, so its gradient would be zero");
  static_assert(!(upstream_first && all_vars && f_one_type && one_type) || upstream_kind,
                "fusegrad::vjp(f, upstream, vars...): upstream must be a number or an Eigen vector, matrix or array "
                "(of f's values, or of one value)");
  if constexpr (!(upstream_first && all_vars && f_one_type && one_type && upstream_kind)) {
    // After the diagnostic, a tuple the caller's structured binding can take apart, so that it adds no error: the
    // values and a gradient per var, and one more where a var stands in the upstream's place.
    if constexpr (upstream_first)
      return std::tuple<detail::after_error, detail::gradient_after_error<Vars>...>{};
    else
      return std::tuple<detail::after_error, detail::after_error, detail::gradient_after_error<Vars>...>{};
  } else {
    const Extents extents = f.extents();
    detail::var_sinks<Vars...> sinks(vars...);
    sinks.start(f);
    auto value = [&] {
      if constexpr (std::is_convertible_v<Upstream, T>) {
        return detail::reverse_sweep(f, sinks, T(upstream), Extents{});
      } else {
        if (static_cast<std::size_t>(upstream.size()) != extents.size() && upstream.size() != 1)
          throw shape_error("fusegrad::vjp(f, upstream, vars...): upstream has " + std::to_string(upstream.size()) +
                            " elements but f has shape " + extents.to_string());
        if (upstream.size() == 1 && extents.size() != 1)  // one value, broadcast
          return detail::reverse_sweep(f, sinks, T(upstream.coeff(0, 0)), Extents{});
        // A vector's values are f's, flat and row-major; a matrix or 2-D array has rank 2 (eigen_extents), f's shape.
        if (!is_eigen_vector_v<Upstream> && upstream.size() != 1 && !(eigen_extents(upstream) == extents))
          throw shape_error("fusegrad::vjp(f, upstream, vars...): upstream has shape " +
                            eigen_extents(upstream).to_string() + " but f has shape " + extents.to_string() +
                            "; give f's shape, or its values flat in a vector, row-major");
        auto up =
            make_storage<T, typename node::static_shape>(extents);  // fixed-size (no heap) for small static shapes
        detail::copy_row_major(up.data(), upstream);
        return detail::reverse_sweep(f, sinks, up, extents);
      }
    }();
    return [&]<std::size_t... I>(std::index_sequence<I...>) {
      return std::tuple<decltype(value), detail::grad_t<Vars>...>(std::move(value), sinks.template result<I>()...);
    }
    (std::index_sequence_for<Vars...>{});
  }
}

}  // namespace fusegrad
