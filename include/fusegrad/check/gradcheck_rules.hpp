// check/gradcheck_rules.hpp -- what fg::gradcheck asks of its inputs and fn, checked at compile time: one error for
// the first rule that fails (each assertion only where those before it hold), after which gradcheck compiles nothing.
#pragma once

#include <concepts>
#include <tuple>
#include <type_traits>
#include <utility>

#include <fusegrad/concepts.hpp>
#include <fusegrad/expr/leaf.hpp>
#include <fusegrad/tape/tensor.hpp>

namespace fusegrad::detail {

// Any Var, owning or a view: gradcheck works on copies of its inputs.
template <class V>
inline constexpr bool is_var_v = false;
template <Scalar T, ShapeType S, class Storage>
inline constexpr bool is_var_v<Var<T, S, Storage>> = true;

// What fn returns on Vars of double of the vars' shapes; void when it cannot take them.
template <class F, class... Vars>
struct result_on_doubles {
  using type = void;
};
template <class F, class... Vars>
  requires(std::invocable<F&, const Var<double, typename Vars::static_shape>&...>)
struct result_on_doubles<F, Vars...> {
  using type = std::remove_cvref_t<std::invoke_result_t<F&, const Var<double, typename Vars::static_shape>&...>>;
};

// Whether gradcheck can check fn on these tensors.
template <class F, Scalar T, class... More>
constexpr bool checkable_on_tensors() {
  constexpr bool one_type = (std::is_same_v<More, BasicTensor<T>> && ...);
  constexpr bool real = std::is_floating_point_v<T>;
  constexpr bool takes_doubles =
      std::invocable<F&, const Tensor&, const decltype((void)std::declval<More>(), std::declval<Tensor>())&...>;
  static_assert(one_type,
                "fusegrad::gradcheck(fn, tensors...): the inputs are all Tensors of one scalar type (or all Vars); "
                "options go last, as fg::GradcheckOptions{.rtol = 1e-4}");
  static_assert(!one_type || real, "fusegrad::gradcheck(fn, tensors...): tensors of float or double");
  static_assert(!(one_type && real) || takes_doubles,
                "fusegrad::gradcheck(fn, tensors...): fn must take fg::Tensor (double) arguments too: the references "
                "are computed in double");
  return one_type && real && takes_doubles;
}

// Whether gradcheck can check fn on these vars.
template <class F, class... Vars>
constexpr bool checkable_on_vars() {
  constexpr bool all_vars = (is_var_v<Vars> && ...);
  static_assert(all_vars,
                "fusegrad::gradcheck(fn, inputs...): the inputs are all Vars (the static layer) or all Tensors; "
                "data that fn reads can be captured as plain numbers, or passed as one more input; options go last, "
                "as fg::GradcheckOptions{.rtol = 1e-4}");
  if constexpr (!all_vars) {
    return false;
  } else {
    using T = typename std::tuple_element_t<0, std::tuple<Vars...>>::value_type;
    constexpr bool one_type = (std::is_same_v<typename Vars::value_type, T> && ...);
    constexpr bool real = std::is_floating_point_v<T>;
    constexpr bool takes_doubles = std::invocable<F&, const Var<double, typename Vars::static_shape>&...>;
    using R = typename result_on_doubles<F, Vars...>::type;
    constexpr bool expression = Differentiable<R>;
    constexpr bool scalar = [] {
      if constexpr (Differentiable<R>)
        return R::static_shape::rank == 0;
      else
        return false;
    }();
    static_assert(one_type, "fusegrad::gradcheck(fn, vars...): every var has the same scalar type");
    static_assert(!one_type || real, "fusegrad::gradcheck(fn, vars...): vars of float or double");
    static_assert(!(one_type && real) || takes_doubles,
                  "fusegrad::gradcheck(fn, vars...): fn must also take Vars of double (write it for any scalar type: "
                  "[](const auto& x) { ... }); the references are computed in double");
    static_assert(!(one_type && real && takes_doubles) || expression,
                  "fusegrad::gradcheck(fn, vars...): fn must return the expression (fg::sum(...)), not a number "
                  "(fg::eval computes one) or nothing: gradcheck differentiates it");
    static_assert(
        !(one_type && real && takes_doubles && expression) || scalar,
        "fusegrad::gradcheck(fn, vars...): fn must return a scalar expression (reduce it: fg::sum, fg::mean)");
    return one_type && real && takes_doubles && expression && scalar;
  }
}

}  // namespace fusegrad::detail
