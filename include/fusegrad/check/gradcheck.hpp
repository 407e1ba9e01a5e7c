// check/gradcheck.hpp -- fg::gradcheck: a function's analytic gradient against the complex step and central
// differences, in both layers, with a report that says where and by how much they differ.
#pragma once

#include <array>
#include <cmath>
#include <complex>
#include <concepts>
#include <cstddef>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <unordered_set>
#include <utility>
#include <vector>

#include <fusegrad/check/gradcheck_report.hpp>
#include <fusegrad/check/gradcheck_rules.hpp>
#include <fusegrad/check/numeric_gradient.hpp>
#include <fusegrad/detail/number_text.hpp>
#include <fusegrad/error.hpp>
#include <fusegrad/expr/analytic.hpp>
#include <fusegrad/expr/eval.hpp>
#include <fusegrad/expr/grad.hpp>
#include <fusegrad/expr/leaf.hpp>
#include <fusegrad/shape/extents.hpp>
#include <fusegrad/tape/grad_mode.hpp>
#include <fusegrad/tape/tensor.hpp>

namespace fusegrad {

namespace detail {

// The first op that is not analytic in the graph that produced `out`, found by walking back
// from it; empty when every node is analytic.
template <class T>
std::string first_non_analytic_node(const tensor_impl<T>& out) {
  std::vector<const node<T>*> pending{out.grad_fn.get()};
  std::unordered_set<const node<T>*> seen;
  while (!pending.empty()) {
    const node<T>* n = pending.back();
    pending.pop_back();
    if (!n || !seen.insert(n).second) continue;
    if (const std::string_view op = n->non_analytic_op(); !op.empty()) return std::string(op);
    for (const edge<T>& e : n->inputs()) pending.push_back(e.fn.get());
  }
  return {};
}

// Splits gradcheck's arguments into inputs and options (the last argument, when it is one).
template <class... Args>
constexpr bool ends_with_options = [] {
  if constexpr (sizeof...(Args) == 0)
    return false;
  else
    return std::is_same_v<
        std::remove_cvref_t<decltype(std::get<sizeof...(Args) - 1>(std::declval<std::tuple<Args...>>()))>,
        GradcheckOptions>;
}();

template <class F, class Args, std::size_t... I>
auto call_without_options(F&& check, const Args& args, std::index_sequence<I...>) {
  return check(std::get<sizeof...(I)>(args), std::get<I>(args)...);
}

template <class U, class V>
Var<U, typename V::static_shape> var_copy(const V& v) {
  Var<U, typename V::static_shape> copy(v.extents());
  for (std::size_t j = 0; j < v.extents().size(); ++j) copy.data()[j] = static_cast<U>(real_part(v.data()[j]));
  return copy;
}

template <class U, class T>
BasicTensor<U> tensor_copy(const BasicTensor<T>& t) {
  std::vector<U> values(t.numel());
  for (std::size_t j = 0; j < values.size(); ++j) values[j] = static_cast<U>(real_part(t.data()[j]));
  return BasicTensor<U>::from(std::span<const U>(values), t.shape());
}

template <class G>
std::vector<double> flat_gradient(const G& g, std::size_t n) {
  std::vector<double> out(n);
  if constexpr (requires { g.data(); }) {
    for (std::size_t j = 0; j < n; ++j) out[j] = real_part(g.data()[j]);
  } else {
    out[0] = real_part(g);  // a Shape<> var's gradient is a number
  }
  return out;
}

// The value of what fn returned for the references, a tensor or an expression of one element.
// An expression is evaluated as it is: recording it would compile a tape node for double and
// for std::complex<double> that no gradient ever runs through.
template <class Result>
auto single_value(const Result& r) {
  if constexpr (is_tensor_v<Result>) {
    return r.item();
  } else {
    const Extents extents = r.extents();
    if (extents.size() != 1)
      throw value_error("fusegrad::gradcheck(fn, tensors...): fn must return one value; it returned shape " +
                        extents.to_string());
    typename Result::value_type value{};
    evaluate_into(r, extents, &value);
    return value;
  }
}

template <class Result>
double scalar_value(const Result& r) {
  if constexpr (requires { r.size(); })
    return real_part(r[0]);
  else
    return real_part(r);
}

// gradcheck_vars once its rules hold.
template <class F, class... Vars>
GradcheckReport gradcheck_checked_vars(const GradcheckOptions& options, F&& fn, const Vars&... vars) {
  using T = typename std::tuple_element_t<0, std::tuple<Vars...>>::value_type;
  using expr_type = typename result_on_doubles<F, Vars...>::type;

  // On copies, as the references and the tape's check: the same Var given twice is two inputs, each with its own
  // partial derivatives (given twice to value_and_grad, it would get the total in both places).
  const auto own = std::make_tuple(var_copy<T>(vars)...);
  auto analytic = std::apply([&](const auto&... v) { return value_and_grad(fn(v...), v...); }, own);
  std::vector<checked_input> inputs(sizeof...(Vars));

  auto doubles = std::make_tuple(var_copy<double>(vars)...);
  auto value = [&] { return scalar_value(eval(std::apply(fn, doubles))); };
  [&]<std::size_t... K>(std::index_sequence<K...>) {
    ((inputs[K].extents = std::get<K>(doubles).extents(),
      inputs[K].analytic = flat_gradient(std::get<K + 1>(analytic), inputs[K].extents.size()),
      central_differences(std::get<K>(doubles).data(), inputs[K].extents.size(), options.eps, value,
                          inputs[K].central)),
     ...);
  }
  (std::index_sequence_for<Vars...>{});

  std::string note;
  bool use_complex_step = options.complex_step;
  if constexpr (!is_analytic_v<expr_type>) {
    note = "the function is not analytic (it uses " + std::string(first_non_analytic_op<expr_type>()) + ")";
    use_complex_step = false;
  } else if constexpr (!std::invocable<F&, const Var<std::complex<double>, typename Vars::static_shape>&...>) {
    note = "fn does not take Vars of std::complex<double>";
    use_complex_step = false;
  } else {
    if (!options.complex_step) note = "turned off in the options";
    if (use_complex_step) {
      auto complexes = std::make_tuple(var_copy<std::complex<double>>(vars)...);
      auto complex_value = [&] {
        const auto r = eval(std::apply(fn, complexes));
        if constexpr (requires { r.size(); })
          return std::complex<double>(r[0]);
        else
          return std::complex<double>(r);
      };
      [&]<std::size_t... K>(std::index_sequence<K...>) {
        (complex_steps(std::get<K>(complexes).data(), inputs[K].extents.size(), complex_value, inputs[K].complex_step),
         ...);
      }
      (std::index_sequence_for<Vars...>{});
    }
  }
  const auto [atol, rtol] = default_tolerances<T>();
  return judge(inputs, use_complex_step, std::move(note), options.atol.value_or(atol), options.rtol.value_or(rtol));
}

// The static layer: every input is a Var.
template <class F, class... Vars>
GradcheckReport gradcheck_vars(const GradcheckOptions& options, F&& fn, const Vars&... vars) {
  if constexpr (!checkable_on_vars<F, Vars...>())
    return GradcheckReport{};  // after the one error, nothing that adds another
  else
    return gradcheck_checked_vars(options, fn, vars...);
}

// gradcheck_tensors once its rules hold.
template <class F, Scalar T, class... More>
GradcheckReport gradcheck_checked_tensors(const GradcheckOptions& options, F&& fn, const BasicTensor<T>& first,
                                          const More&... more) {
  constexpr std::size_t count = 1 + sizeof...(More);
  const std::array<const BasicTensor<T>*, count> originals{&first, &more...};
  for (std::size_t k = 0; k < count; ++k)
    if (!originals[k]->defined())
      throw value_error("fusegrad::gradcheck: input " + std::to_string(k) + " is an undefined tensor");

  std::vector<checked_input> inputs(count);
  bool analytic_graph = true;
  std::string non_analytic;
  {
    const EnableGradGuard recording;  // also inside a caller's NoGradGuard
    auto copies = std::make_tuple(tensor_copy<T>(first), tensor_copy<T>(more)...);
    std::apply([](auto&... c) { (c.requires_grad_(), ...); }, copies);
    BasicTensor<T> out = std::apply(fn, copies);
    if (out.numel() != 1)
      throw value_error(
          "fusegrad::gradcheck(fn, tensors...): fn must return one value (a scalar tensor); it returned shape " +
          out.shape().to_string() + ". Reduce it: fg::sum, fg::mean");
    if (out.impl()->grad_fn) non_analytic = first_non_analytic_node(*out.impl());
    analytic_graph = non_analytic.empty();
    // fg::grad, not backward(): the tensors fn captures keep their gradients and their graphs, as with
    // torch.autograd.gradcheck.
    std::vector<BasicTensor<T>> grads(count);
    if (out.requires_grad())
      grads =
          fusegrad::grad(out, std::apply([](const auto&... c) { return std::vector<BasicTensor<T>>{c...}; }, copies),
                         {.retain_graph = true, .allow_unused = true});
    [&]<std::size_t... K>(std::index_sequence<K...>) {
      ((inputs[K].extents = std::get<K>(copies).shape(),
        inputs[K].analytic = grads[K].defined() ? flat_gradient(grads[K], std::get<K>(copies).numel())
                                                : std::vector<double>(std::get<K>(copies).numel(), 0.0)),
       ...);
    }
    (std::make_index_sequence<count>{});
  }

  const NoGradGuard no_grad;
  auto doubles = std::make_tuple(tensor_copy<double>(first), tensor_copy<double>(more)...);
  auto value = [&] { return real_part(single_value(std::apply(fn, doubles))); };
  [&]<std::size_t... K>(std::index_sequence<K...>) {
    (central_differences(std::get<K>(doubles).mutable_eigen().data(), inputs[K].extents.size(), options.eps, value,
                         inputs[K].central),
     ...);
  }
  (std::make_index_sequence<count>{});

  using complex_tensor = BasicTensor<std::complex<double>>;
  // What fn returns for real tensors: an expression says at compile time whether it is analytic,
  // a recorded tensor only at run time (the graph the analytic pass recorded).
  using result_type = std::remove_cvref_t<
      std::invoke_result_t<F&, const Tensor&, const decltype((void)std::declval<More>(), std::declval<Tensor>())&...>>;
  constexpr bool statically_not_analytic = [] {
    if constexpr (is_tensor_v<result_type>)
      return false;
    else
      return !is_analytic_v<result_type>;
  }();
  std::string note;
  bool use_complex_step = options.complex_step;
  if (!analytic_graph) {
    note = "the function is not analytic (it uses " + non_analytic + ")";
    use_complex_step = false;
  }
  if constexpr (statically_not_analytic) {
    if (note.empty())
      note = "the function is not analytic (it uses " + std::string(first_non_analytic_op<result_type>()) + ")";
    use_complex_step = false;
  } else if constexpr (!std::invocable<F&, const complex_tensor&,
                                       const decltype((void)std::declval<More>(),
                                                      std::declval<complex_tensor>())&...>) {
    if (note.empty()) note = "fn does not take complex tensors";
    use_complex_step = false;
  } else {
    if (!options.complex_step && note.empty()) note = "turned off in the options";
    if (use_complex_step) {
      auto complexes =
          std::make_tuple(tensor_copy<std::complex<double>>(first), tensor_copy<std::complex<double>>(more)...);
      auto complex_value = [&] { return std::complex<double>(single_value(std::apply(fn, complexes))); };
      [&]<std::size_t... K>(std::index_sequence<K...>) {
        (complex_steps(std::get<K>(complexes).mutable_eigen().data(), inputs[K].extents.size(), complex_value,
                       inputs[K].complex_step),
         ...);
      }
      (std::make_index_sequence<count>{});
    }
  }
  const auto [atol, rtol] = default_tolerances<T>();
  return judge(inputs, use_complex_step, std::move(note), options.atol.value_or(atol), options.rtol.value_or(rtol));
}

// The tape: every input is a Tensor. fn runs on copies, so the inputs, their gradients and
// their graphs are left as they were.
template <class F, Scalar T, class... More>
GradcheckReport gradcheck_tensors(const GradcheckOptions& options, F&& fn, const BasicTensor<T>& first,
                                  const More&... more) {
  if constexpr (!checkable_on_tensors<F, T, More...>())
    return GradcheckReport{};
  else
    return gradcheck_checked_tensors(options, fn, first, more...);
}

}  // namespace detail

/// gradcheck with the options first.
template <class F, class First, class... More>
[[nodiscard]] GradcheckReport gradcheck_with(const GradcheckOptions& options, F&& fn, const First& first,
                                             const More&... more) {
  // A NaN tolerance would pass every comparison, a negative one fail every one: refused before fn runs.
  for (const auto& [name, tolerance] : {std::pair{"atol", options.atol}, std::pair{"rtol", options.rtol}})
    if (tolerance && !(*tolerance >= 0 && std::isfinite(*tolerance)))
      throw value_error(std::string("fusegrad::gradcheck: ") + name + " must be a number >= 0, not " +
                        detail::number_text(*tolerance) + " (left unset, it follows the inputs' scalar type)");
  if constexpr (detail::is_tensor_v<First>)
    return detail::gradcheck_tensors(options, fn, first, more...);
  else
    return detail::gradcheck_vars(options, fn, first, more...);
}

/// Checks the gradient of `fn`, a function of its inputs to one value, against numbers that
/// do not come from fusegrad's VJPs: the complex step (f'(x) = Im f(x + ih) / h with h =
/// 1e-20, exact to rounding) where the function is analytic, central differences otherwise.
///
/// The inputs are all Vars (the static layer: fn returns a scalar expression, differentiated
/// with value_and_grad) or all Tensors (the tape: fn returns a scalar Tensor or expression,
/// differentiated with backward, on copies: the inputs and their gradients stay as they were).
/// Options, when given, come last: `fg::gradcheck(fn, x, y, fg::GradcheckOptions{.rtol =
/// 1e-4})`. Write fn for any scalar type (`[](const auto& x) { return fg::sum(fg::sin(x) * x); }`): the references
/// run it in double and in std::complex<double>; a fn that takes only real inputs, or uses an
/// op that is not analytic (abs, relu, maximum, minimum, max, softplus, log_sigmoid), is
/// checked against central differences, and the report says why. A generic fn of Tensors that
/// records a tensor (fg::taped(...), or a tensor of its arguments' own type) is compiled for complex tensors too,
/// since whether its graph is analytic is known only when it runs; if it uses one of those ops, or names fg::Tensor
/// (which holds double), it declares its parameters `const fg::Tensor&` (an expression it returns unrecorded is
/// judged at compile time, and needs no such care).
/// Example: examples/gradcheck.cpp.
template <class F, class... Args>
[[nodiscard]] GradcheckReport gradcheck(F&& fn, const Args&... args) {
  if constexpr (detail::ends_with_options<Args...>) {
    return detail::call_without_options(
        [&](const GradcheckOptions& options, const auto&... inputs) { return gradcheck_with(options, fn, inputs...); },
        std::forward_as_tuple(args...), std::make_index_sequence<sizeof...(Args) - 1>{});
  } else {
    return gradcheck_with(GradcheckOptions{}, fn, args...);
  }
}

}  // namespace fusegrad
