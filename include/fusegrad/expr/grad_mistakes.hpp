// expr/grad_mistakes.hpp -- what value_and_grad and grad are given by mistake, with one error each: a function or a
// number where the expression goes (JAX's grad(fn), a value eval computed), a function alone (value_and_grad(fn)(x)),
// vars in braces (the Tensors' form), and a var given as a temporary (vjp and value_and_grad_into too).
#pragma once

#include <array>
#include <concepts>
#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

#include <fusegrad/concepts.hpp>
#include <fusegrad/detail/after_error.hpp>
#include <fusegrad/detail/always_false.hpp>

namespace fusegrad {

namespace detail {
// A function of the vars (or of none: a closure that captures them), or a number, where value_and_grad and grad take an
// expression of them (JAX's grad(fn), or a value eval has computed): only these mistakes, so that other functions named
// grad that argument-dependent lookup brings in keep their calls.
template <class F, class... Vars>
concept function_or_number_of_vars = !Differentiable<F> && sizeof...(Vars) > 0 && (is_variable_v<Vars> && ...) &&
                                     (std::invocable<const F&, const Vars&...> || std::invocable<const F&> ||
                                      std::is_arithmetic_v<F>);

// A var given as a temporary (fg::Var<...>(...), std::move(x)): an expression holds its vars by reference and refuses
// temporaries, so no expression holds it, and its gradient would be zeros.
template <class... Vars>
concept temporary_var_among = ((is_variable_v<std::remove_cvref_t<Vars>> && !std::is_lvalue_reference_v<Vars>) || ...);

// A function alone, JAX's value_and_grad(fn) and grad(fn), which make a function of it.
template <class F>
concept function_alone = !Differentiable<F> && std::is_class_v<F>;

// What a diagnostic overload returns for each var's gradient, after its one error.
template <class Var>
using gradient_after_error = after_error;
// What a diagnostic grad returns after its one error: a gradient for one var, a tuple of them for several.
template <class... Vars>
auto grad_after_error() {
  if constexpr (sizeof...(Vars) == 1)
    return after_error{};
  else
    return std::tuple<gradient_after_error<Vars>...>{};
}

// A var in the braced list of grad(f, {x, y}), the Tensors' form. The list arrives as an array of these, whose length
// the call deduces: what it returns after its error then has one gradient per var, so that `auto [dx, dy] = ...` adds
// no second error.
struct braced_var {
  template <class V>
    requires is_variable_v<V> braced_var(const V&) {}  // NOLINT: implicit, to take the braced list's elements
};
}  // namespace detail

// These diagnostic overloads bind the vars (and a function alone) as const volatile: any other overload that takes them
// by reference, such as a program's own grad that argument-dependent lookup brings in beside these, is the better match
// and keeps its call. (A temporary binds to none of them, and gets the compiler's list of candidates.)

/// A function or a number where the expression goes: one error that says what value_and_grad and grad take, where no
/// overload would match and the compiler would list every candidate.
template <class F, class... Vars>
  requires detail::function_or_number_of_vars<F, Vars...>
auto value_and_grad(const F&, const volatile Vars&...) {
  static_assert(detail::always_false<F>,
                "fusegrad::value_and_grad and grad(f, vars...): f is an expression built from the vars, not a "
                "function or a number: fg::value_and_grad(fg::sum(x * x), x), or call the function first, "
                "fg::value_and_grad(fn(x), x)");
  return std::tuple<double, detail::gradient_after_error<Vars>...>{};  // after the one error, nothing that adds another
}
/// A function alone (JAX's value_and_grad(fn)(x)): the same error.
template <class F>
  requires detail::function_alone<F>
auto value_and_grad(const volatile F&) {
  static_assert(detail::always_false<F>,
                "fusegrad::value_and_grad and grad(f, vars...): f is an expression built from the vars, not a "
                "function: fg::value_and_grad(fg::sum(x * x), x), or call the function first, "
                "fg::value_and_grad(fn(x), x); there is no value_and_grad(fn)(x)");
  // After the one error, a function of the vars, so that calling it adds no other.
  return [](const auto&... vars) { return std::tuple<double, detail::gradient_after_error<decltype(vars)>...>{}; };
}
/// Vars in braces, as Tensors are given: one error that says how vars are given.
template <Differentiable E, std::size_t Count>
auto value_and_grad(const E&, const detail::braced_var (&)[Count]) {
  static_assert(detail::always_false<E>,
                "fusegrad::value_and_grad and grad(f, vars...): the vars of an expression are given one by one, "
                "fg::grad(f, x, y) (auto [dx, dy] = ...); the braced list, fg::grad(loss, {w, b}), is for Tensors");
  return std::array<detail::after_error, Count + 1>{};  // the value and each var's gradient
}

/// A var given as a temporary: one error (an expression cannot hold one, so its gradient would be zero).
template <Differentiable E, class... Vars>
  requires detail::temporary_var_among<Vars...>
auto value_and_grad(const E&, Vars&&...) {
  static_assert(detail::always_false<E>,
                "fusegrad::value_and_grad, grad, vjp and value_and_grad_into: a var given as a temporary "
                "(fg::Var<...>(...), std::move(x)) is not one f was built from, so its gradient would be zero; give "
                "the vars f was built from, by name");
  return std::tuple<double, detail::gradient_after_error<Vars>...>{};  // after the one error, nothing that adds another
}

template <Differentiable E, class Upstream, class... Vars>
  requires detail::temporary_var_among<Vars...>
auto vjp(const E& f, const Upstream&, Vars&&... vars) {
  return value_and_grad(f, std::forward<Vars>(vars)...);  // its one error, and a value and a gradient per var
}

/// grad's mistakes, as value_and_grad's: a function or a number where the expression goes, a function alone, vars in
/// braces.
template <class F, class... Vars>
  requires detail::function_or_number_of_vars<F, Vars...>
auto grad(const F& f, const volatile Vars&... vars) {
  (void)value_and_grad(f, vars...);  // its one error
  return detail::grad_after_error<Vars...>();
}
template <class F>
  requires detail::function_alone<F>
auto grad(const volatile F& f) {
  (void)value_and_grad(f);  // its one error
  return [](const auto&... vars) { return detail::grad_after_error<decltype(vars)...>(); };
}
template <Differentiable E, class... Vars>
  requires detail::temporary_var_among<Vars...>
auto grad(const E& f, Vars&&... vars) {
  (void)value_and_grad(f, std::forward<Vars>(vars)...);  // its one error
  return detail::grad_after_error<Vars...>();
}
template <Differentiable E, std::size_t Count>
auto grad(const E& f, const detail::braced_var (&vars)[Count]) {
  (void)value_and_grad(f, vars);  // its one error
  if constexpr (Count == 1)
    return detail::after_error{};
  else
    return std::array<detail::after_error, Count>{};
}

}  // namespace fusegrad
