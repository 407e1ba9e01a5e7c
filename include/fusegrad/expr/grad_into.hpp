// expr/grad_into.hpp -- value_and_grad_into: the fused reverse sweep writing each gradient into memory the caller
// owns, so a loop that reuses its buffers needs no memory of its own for them.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <functional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include <fusegrad/concepts.hpp>
#include <fusegrad/detail/always_false.hpp>
#include <fusegrad/error.hpp>
#include <fusegrad/expr/grad.hpp>
#include <fusegrad/expr/grad_mistakes.hpp>
#include <fusegrad/expr/linear_root.hpp>
#include <fusegrad/expr/var_sinks.hpp>
#include <fusegrad/expr/visit.hpp>

namespace fusegrad {

namespace detail {

// Where a var's gradient may go: a number for a Shape<> var, else contiguous storage of the
// var's scalar type whose flat order is the var's (row-major): an Eigen vector or row-major
// matrix, array, Map or Ref with unit inner stride.
template <class Out, class V>
concept GradientOutput = [] {
  using var_scalar = typename V::value_type;
  if constexpr (std::is_same_v<typename V::static_shape, Shape<>> && std::is_same_v<Out, var_scalar>) {
    return true;
  } else if constexpr (requires(Out & out) {
                         { out.data() } -> std::same_as<var_scalar*>;
                         out.size();
                         Out::IsVectorAtCompileTime;
                         Out::IsRowMajor;
                         out.innerStride();
                       }) {
    return V::static_shape::rank <= 1 || bool(Out::IsVectorAtCompileTime) || bool(Out::IsRowMajor);
  } else {
    return false;
  }
}();

// An output's values and count (a number is one value), and whether they are contiguous: unit
// inner stride, and rows (or columns) that follow one another without gaps.
template <class Out>
auto* output_data(Out& out) {
  if constexpr (requires { out.data(); })
    return out.data();
  else
    return &out;
}
template <class Out>
std::size_t output_size(const Out& out) {
  if constexpr (requires { out.size(); })
    return static_cast<std::size_t>(out.size());
  else
    return 1;
}
template <class Out>
bool output_contiguous(const Out& out) {
  if constexpr (requires { out.innerStride(); }) {
    if (out.innerStride() != 1) return false;
    if constexpr (!Out::IsVectorAtCompileTime) return out.outerSize() <= 1 || out.outerStride() == out.innerSize();
  }
  return true;
}

// Whether [a, a + n) and [b, b + m) share a value.
template <class T>
bool overlap(const T* a, std::size_t n, const T* b, std::size_t m) {
  return n > 0 && m > 0 && std::less<const T*>{}(a, b + m) && std::less<const T*>{}(b, a + n);
}

// An Eigen object that views memory it does not own (a Map, a Ref, a block): written as a temporary, it writes there.
template <class T>
inline constexpr bool is_eigen_view_v = requires {
  typename T::PlainObject;
  requires !std::is_same_v<T, typename T::PlainObject>;
};

template <class T>
inline constexpr bool is_tuple_v = false;
template <class... Ts>
inline constexpr bool is_tuple_v<std::tuple<Ts...>> = true;

template <class E, class... Outs, class... Vars>
[[gnu::always_inline]] inline typename E::value_type value_and_grad_into_body(const E& f, std::tuple<Outs&...> outs,
                                                                              const Vars&... vars) {
  using T = typename E::value_type;  // a static expression has one scalar type: its vars' too
  constexpr std::size_t count = sizeof...(Vars);
  constexpr const char* where = "fusegrad::value_and_grad_into(f, gradients, vars...): ";
  // The whole graph's extents first: operands that do not fit throw before any output is touched.
  if (const Extents root = f.extents(); root.size() != 1)
    throw shape_error(where + std::string("f has shape ") + root.to_string() +
                      ", not a scalar; reduce it (fg::sum, fg::mean)");
  // Every materialised node's too, before any output is written: the root's extents() does not reach them all
  // (binary_expr skips an operand of static size, such as a full sum).
  check_materialized_extents_below(f);
  const std::array<const void*, count> names{&vars...};
  const std::array<const T*, count> var_data{vars.data()...};
  const std::array<Extents, count> extents{vars.extents()...};
  const auto each_output = [&outs](auto read) {
    return std::apply([&](auto&... out) { return std::array{read(out)...}; }, outs);
  };
  const std::array<T*, count> targets = each_output([](auto& out) -> T* { return output_data(out); });
  const std::array<std::size_t, count> sizes = each_output([](auto& out) { return output_size(out); });
  const std::array<bool, count> contiguous = each_output([](auto& out) { return output_contiguous(out); });
  // Every output is checked before any is written.
  const auto gradient = [](std::size_t k) { return "gradient " + std::to_string(k); };  // for messages only
  for (std::size_t k = 0; k < count; ++k) {
    if (sizes[k] != extents[k].size())
      throw shape_error(where + gradient(k) + " holds " + std::to_string(sizes[k]) + " values but its var has shape " +
                        extents[k].to_string() + "; size it like the var");
    if (!contiguous[k])
      throw shape_error(where + gradient(k) +
                        " is not contiguous (a strided Map or Ref, or a block of a larger matrix); pass storage "
                        "whose values follow one another");
    for (std::size_t j = 0; j < count; ++j) {
      if (overlap<T>(targets[k], sizes[k], var_data[j], extents[j].size()))
        throw value_error(where + gradient(k) + " shares memory with var " + std::to_string(j) +
                          "'s values, which the sweep reads; write the gradient elsewhere");
      const bool same_naming = names[j] == names[k] && targets[j] == targets[k];
      if (j < k && !same_naming && overlap<T>(targets[k], sizes[k], targets[j], sizes[j]))
        throw value_error(where + gradient(k) + " shares memory with gradient " + std::to_string(j) +
                          "; give each var's gradient its own storage");
    }
  }

  // Nor may an output share memory with any other leaf f reads (a Const, a view, a var not asked about): the outputs
  // are zeroed before the sweep reads the leaves.
  for_each_leaf(f, [&](const auto& leaf) {
    const T* values = leaf.data();
    const std::size_t size = leaf.extents().size();
    for (std::size_t k = 0; k < count; ++k)
      if (overlap<T>(targets[k], sizes[k], values, size))
        throw value_error(where + gradient(k) +
                          " shares memory with a leaf of f (a Const, a view, or a var not differentiated), whose "
                          "values the sweep reads; write the gradient elsewhere");
  });

  auto sink_targets = [&]<std::size_t... K>(std::index_sequence<K...>) {
    return std::tuple<typename Vars::value_type*...>(targets[K]...);
  }
  (std::make_index_sequence<count>{});
  basic_var_sinks<std::tuple<typename Vars::value_type*...>, Vars...> sinks{{&vars...}, sink_targets};
  if constexpr (has_leaf_operands_v<E>) sinks.count_uses(f);
  for (std::size_t k = 0; k < count; ++k)
    if (!sinks.written_whole(k)) std::fill_n(targets[k], sizes[k], T(0));
  const T value = reverse_sweep(f, sinks, T(1), Extents{})[0];

  // The sweep sends a var's gradient to its first naming: a later naming of it gets a copy.
  for (std::size_t k = 1; k < count; ++k) {
    const std::size_t first = std::size_t(std::find(names.begin(), names.begin() + k, names[k]) - names.begin());
    if (first != k && targets[first] != targets[k]) std::copy_n(targets[first], sizes[k], targets[k]);
  }
  return value;
}

template <class E, class... Outs, class... Vars>
typename E::value_type value_and_grad_into_shared(const E& f, std::tuple<Outs&...> outs, const Vars&... vars) {
  return value_and_grad_into_body(f, outs, vars...);
}

}  // namespace detail

/// value_and_grad that writes each var's gradient into memory the caller owns and returns the value:
/// `double v = fg::value_and_grad_into(f, std::tie(dx, dy), x, y);`. An output is a number for a
/// Shape<> var, else contiguous storage holding as many values as its var, in the var's row-major
/// order (an Eigen vector, a row-major matrix, an array, a Map over a std::vector or a Ref); it is
/// overwritten. For an element-wise chain of leaves of its own shape (or one value) under a full sum or
/// mean nothing is allocated, at any size: a training loop that reuses its buffers never touches the
/// heap. Broadcasting and materialised ops (matmul, the other reductions) use scratch of their own
/// (README, value_and_grad_into). Sizes, contiguity, memory shared with a var or another output, and
/// f's shapes are checked before anything is written (fusegrad::shape_error, fusegrad::value_error).
template <Differentiable E, class... Outs, class... Vars>
[[gnu::always_inline]] inline auto value_and_grad_into(const E& f, std::tuple<Outs&...> gradients,
                                                       const Vars&... vars) {
  using node = std::remove_cvref_t<E>;
  static_assert(sizeof...(Vars) > 0, "fusegrad::value_and_grad_into(f, gradients, vars...): name at least one var");
  static_assert(sizeof...(Outs) == sizeof...(Vars),
                "fusegrad::value_and_grad_into(f, gradients, vars...): one output per var (std::tie(dx, dy) for "
                "vars x, y)");
  static_assert((detail::is_variable_v<Vars> && ...),
                "fusegrad::value_and_grad_into(f, gradients, vars...): every var must be a fusegrad::Var; a Const or "
                "an expression takes no gradient");
  constexpr bool one_scalar_type = detail::vars_have_scalar_type_of<node, Vars...>();
  static_assert(one_scalar_type,
                "fusegrad::value_and_grad_into(f, gradients, vars...): every var must have f's scalar type");
  static_assert(
      detail::scalar_shaped_v<node>,
      "fusegrad::value_and_grad_into(f, gradients, vars...): f is not a scalar; reduce it (fg::sum, fg::mean)");
  using T = typename node::value_type;
  if constexpr (sizeof...(Outs) != sizeof...(Vars) || !one_scalar_type) {
    return T{};  // after the assertion above, a value, so that the caller's code adds no error
  } else {
    constexpr bool outputs_fit = (detail::GradientOutput<Outs, Vars> && ...);
    static_assert(outputs_fit,
                  "fusegrad::value_and_grad_into(f, gradients, vars...): each output is a number of the var's scalar "
                  "type for a Shape<> var, else contiguous Eigen storage of that scalar type in the var's row-major "
                  "order (a vector, a row-major matrix, an array, a Map or a Ref)");
    // Likewise after that assertion, or where f mixes scalar types (reported there: common_value_type.hpp).
    if constexpr (!outputs_fit || !detail::one_scalar_type_v<node>)
      return T{};
    else if constexpr (detail::one_element_graph_v<node>)
      return detail::value_and_grad_into_body(f, gradients, vars...);
    else
      return detail::value_and_grad_into_shared(f, gradients, vars...);
  }
}

/// A var given as a temporary: one error (an expression cannot hold one, so its gradient would be zero).
template <Differentiable E, class... Outs, class... Vars>
  requires detail::temporary_var_among<Vars...>
auto value_and_grad_into(const E& f, std::tuple<Outs&...>, Vars&&... vars) {
  (void)value_and_grad(f, std::forward<Vars>(vars)...);  // its one error
  return typename E::value_type{};                       // after it, nothing that adds another
}
template <Differentiable E, class Out, class V>
  requires(!detail::is_tuple_v<std::remove_cvref_t<Out>> && detail::temporary_var_among<V>)
auto value_and_grad_into(const E& f, Out&&, V&& var) {
  (void)value_and_grad(f, std::forward<V>(var));  // its one error
  return typename E::value_type{};
}

/// The same for one var, whose output needs no std::tie: `double v = fg::value_and_grad_into(f, dx, x);`. The output is
/// a named object, or a Map or Ref made in the call (it writes the memory it views).
template <Differentiable E, class Out, class Var>
  requires(!detail::is_tuple_v<std::remove_cvref_t<Out>>)
[[gnu::always_inline]] inline auto value_and_grad_into(const E& f, Out&& gradient, const Var& var) {
  static_assert(std::is_lvalue_reference_v<Out> || detail::is_eigen_view_v<std::remove_cvref_t<Out>>,
                "fusegrad::value_and_grad_into(f, gradient, var): the output is a temporary, so the gradient would be "
                "written into it and thrown away; pass a named array or number, or a Map over memory you own");
  return value_and_grad_into(f, std::tie(gradient), var);
}

}  // namespace fusegrad
