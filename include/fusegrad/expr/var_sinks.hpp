// expr/var_sinks.hpp -- where a static sweep sends each leaf's gradient: the vars that value_and_grad, vjp and
// value_and_grad_into were asked about, by address.
#pragma once

#include <array>
#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

#include <fusegrad/expr/gradient_array.hpp>
#include <fusegrad/expr/leaf.hpp>
#include <fusegrad/expr/leaf_uses.hpp>
#include <fusegrad/expr/storage.hpp>
#include <fusegrad/expr/sweep.hpp>

namespace fusegrad::detail {

// gradient_storage_t<V>: what holds the gradient of var V while the sweep adds to it, and after: fixed-size Eigen
// storage where V's shape allows it (no heap), else a GradientArray (a recycled block).
template <class V>
using gradient_storage_t = std::conditional_t<has_fixed_storage_v<typename V::value_type, typename V::static_shape>,
                                              storage_t<typename V::value_type, typename V::static_shape>,
                                              GradientArray<typename V::value_type>>;

// grad_t<V>: the gradient of var V: a scalar for rank-0 vars, else one column of V's size (row-major).
template <class V>
using grad_t = std::conditional_t<std::is_same_v<typename V::static_shape, Shape<>>, typename V::value_type,
                                  gradient_storage_t<V>>;

// A gradient_storage_t for var v, uninitialised.
template <class V>
gradient_storage_t<V> make_gradient_storage(const V& v) {
  if constexpr (has_fixed_storage_v<typename V::value_type, typename V::static_shape>)
    return gradient_storage_t<V>();
  else
    return gradient_storage_t<V>(v.extents().size());
}

// Routes each leaf occurrence to the gradient of the requested var it is (by address), or
// nowhere. A var used several times gets every occurrence's contribution added. `Grads` holds
// the gradients: arrays of their own (value_and_grad) or pointers to the caller's memory
// (value_and_grad_into).
//
// Where count_uses(expr) has counted every leaf occurrence of each var, sole_sink_for(leaf) also gives the gradient
// of a var that occurs only there: a materialised node whose operand the leaf is writes its VJP there instead of
// adding it from a buffer of its own. When a gradient reaches that node, the VJP writes the var's gradient whole, and
// it need not start at zero (written_whole); every other gradient must.
template <class Grads, class... Vars>
struct basic_var_sinks {
  std::tuple<const Vars*...> vars;
  Grads grads;
  std::array<std::size_t, sizeof...(Vars)> uses{};
  std::array<bool, sizeof...(Vars)> whole{};  // its one occurrence is an operand of a node the gradient reaches
  bool uses_counted = false;

  template <class L>
  typename L::value_type* sink_for(const L& leaf) {
    typename L::value_type* out = nullptr;
    if constexpr (L::takes_grad) {
      [&]<std::size_t... I>(std::index_sequence<I...>) { (match<I>(leaf, out), ...); }
      (std::index_sequence_for<Vars...>{});
    }
    return out;
  }

  template <class E>
  void count_uses(const E& expr) {
    for_each_leaf_use(expr, [&](const auto& leaf, bool written_whole_there) {
      std::size_t var = sizeof...(Vars);
      match_any(leaf, var);
      if (var < sizeof...(Vars)) {
        ++uses[var];
        whole[var] = written_whole_there;
      }
    });
    uses_counted = true;
  }

  // Whether var I's gradient is written whole by the VJP of the one node whose operand it is.
  [[nodiscard]] bool written_whole(std::size_t var) const { return uses_counted && uses[var] == 1 && whole[var]; }

  template <class L>
  typename L::value_type* sole_sink_for(const L& leaf) {
    if (!uses_counted) return nullptr;
    std::size_t var = sizeof...(Vars);
    typename L::value_type* out = match_any(leaf, var);
    return var < sizeof...(Vars) && uses[var] == 1 ? out : nullptr;
  }

 private:
  // The gradient of the first var that `leaf` is, and that var's index in `var`.
  template <class L>
  typename L::value_type* match_any(const L& leaf, std::size_t& var) {
    typename L::value_type* out = nullptr;
    if constexpr (L::takes_grad) {
      [&]<std::size_t... I>(std::index_sequence<I...>) { ((match<I>(leaf, out) ? void(var = I) : void()), ...); }
      (std::index_sequence_for<Vars...>{});
    }
    return out;
  }

  // Whether var I is `leaf` and no earlier var was: then `out` is its gradient.
  template <std::size_t I, class L>
  bool match(const L& leaf, typename L::value_type*& out) {
    using V = std::tuple_element_t<I, std::tuple<Vars...>>;
    if constexpr (std::is_same_v<V, L>) {
      if (!out && std::get<I>(vars) == &leaf) {
        auto& g = std::get<I>(grads);
        if constexpr (std::is_pointer_v<std::remove_cvref_t<decltype(g)>>)
          out = g;
        else
          out = g.data();
        return true;
      }
    }
    return false;
  }
};
// count_uses lets written_whole gradients go without zeros: the sweep must find sole_sink_for (SoleSinks, checked in
// tests/static/protocols_static_test.cpp).

// The sinks of value_and_grad and vjp: arrays of the vars' sizes, moved out as results.
template <class... Vars>
struct var_sinks : basic_var_sinks<std::tuple<gradient_storage_t<Vars>...>, Vars...> {
  explicit var_sinks(const Vars&... v)
      : basic_var_sinks<std::tuple<gradient_storage_t<Vars>...>, Vars...>{{&v...}, {make_gradient_storage(v)...}} {}

  // Before the sweep of expr: every gradient it adds to starts at zero.
  template <class E>
  void start(const E& expr) {
    if constexpr (has_leaf_operands_v<E>) this->count_uses(expr);
    [&]<std::size_t... I>(std::index_sequence<I...>) {
      ((this->written_whole(I) ? void() : void(std::get<I>(this->grads).setZero())), ...);
    }
    (std::index_sequence_for<Vars...>{});
  }

  // The gradient of var I. The sweep sends a leaf's gradient to the first var it matches,
  // so a var named twice (value_and_grad(f, x, x)) takes the first naming's gradient. A
  // gradient is moved out only when no other naming reads it, so the results may be taken in
  // any order (a constructor's arguments are evaluated in an order the compiler chooses).
  template <std::size_t I>
  auto result() {
    using V = std::tuple_element_t<I, std::tuple<Vars...>>;
    auto& all_grads = this->grads;  // members of a dependent base: named once here
    const auto& all_vars = this->vars;
    auto* source = &std::get<I>(all_grads);
    bool shared = false;
    [&]<std::size_t... J>(std::index_sequence<J...>) {
      auto other_naming = [&]<std::size_t K>(std::integral_constant<std::size_t, K>) {
        if constexpr (K != I && std::is_same_v<std::tuple_element_t<K, std::tuple<Vars...>>, V>) {
          if (std::get<K>(all_vars) != std::get<I>(all_vars)) return;
          shared = true;
          if (K < I && source == &std::get<I>(all_grads)) source = &std::get<K>(all_grads);
        }
      };
      (other_naming(std::integral_constant<std::size_t, J>{}), ...);
    }
    (std::index_sequence_for<Vars...>{});
    using G = std::remove_cvref_t<decltype(*source)>;
    if constexpr (std::is_same_v<grad_t<V>, typename V::value_type>)
      return (*source)[0];
    else
      return shared ? G(*source) : G(std::move(*source));
  }
};

}  // namespace fusegrad::detail
