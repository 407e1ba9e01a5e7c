// tape/fused.hpp -- the bridge: fg::fused and `Tensor t = expr;` record a static expression as one tape node.
#pragma once

#include <string>
#include <type_traits>
#include <utility>

#include <boost/mp11/list.hpp>

#include <fusegrad/error.hpp>
#include <fusegrad/expr/children.hpp>
#include <fusegrad/expr/eval.hpp>
#include <fusegrad/expr/leaf.hpp>
#include <fusegrad/expr/visit.hpp>
#include <fusegrad/shape/shape.hpp>
#include <fusegrad/tape/basic_tensor.hpp>
#include <fusegrad/tape/fused_node.hpp>
#include <fusegrad/tape/grad_mode.hpp>
#include <fusegrad/tape/record_node.hpp>
#include <fusegrad/tape/undefined_tensor.hpp>

namespace fusegrad {

namespace detail {

// A leaf a recorded node cannot keep by value: a Var (its gradient would have nowhere to go) or a view (it reads
// caller memory, which may change or be freed before the node's backward).
template <class L>
inline constexpr bool unrecordable_leaf_v = is_view_const<L>::value;
template <class T, class S, class Storage>
inline constexpr bool unrecordable_leaf_v<Var<T, S, Storage>> = true;

// holds_references<C>(): some leaf of the stored operand C is held by reference (an lvalue
// Var or Const), or is a Var or a view held by value. A recorded node outlives the statement
// that built it, so it may hold only tensors (handles) and values.
template <class C>
constexpr bool holds_references() {
  return std::is_reference_v<C> || unrecordable_leaf_v<std::remove_cvref_t<C>> ||
         []<class... Xs>(boost::mp11::mp_list<Xs...>) {
           return (holds_references<Xs>() || ...);
         }(stored_children_t<std::remove_cvref_t<C>>{});
}

}  // namespace detail

/// Records a static expression whose leaves are tensors (and plain numbers) as ONE tape
/// node whose backward is the fused static gradient. What `Tensor t = expr;` does.
/// When the value is one element and the expression is a sum or mean, a linear root above such
/// (fg::LinearRoot), or element-wise, of several ops, its value is deferred: a backward that
/// comes first computes value and gradients in one pass.
/// A reshape of a tensor shares its values. Example: examples/dynamic_graph.cpp.
/// A temporary expression is moved into the node (its tensor handles change hands without
/// touching their reference counts).
template <class E>
  requires Differentiable<std::remove_cvref_t<E>>
[[nodiscard]] auto fused(E&& expr) {
  using node_type = std::remove_cvref_t<E>;
  using T = typename node_type::value_type;
  if constexpr (detail::is_tensor_v<node_type>) {
    return node_type(std::forward<E>(expr));
  } else if constexpr (!detail::one_scalar_type_v<node_type>) {
    return BasicTensor<T>{};  // after the one error of mixed scalar types, nothing that adds another
  } else {
    static_assert(!detail::holds_references<node_type>(),
                  "fusegrad::fused(expr): a recorded expression may hold only Tensors and plain numbers, not "
                  "Var leaves, views or references to Const leaves (it outlives this statement); make a Tensor of "
                  "the data with fusegrad::Tensor::from(...)");
    typename detail::fused_node<node_type>::leaf_list all;
    typename detail::fused_node<node_type>::grad_leaf_list needing_grad;
    // from_blob memory, which its owner writes without the tensor knowing: a deferrable value is computed at once.
    bool reads_caller_memory = false;
    // Only leaves a gradient reaches get an edge: one read only by a comparison gets none. Without
    // a comparison in the expression, that is every leaf that requires grad, found in one walk.
    constexpr bool one_walk = passes_gradients_everywhere<node_type>();
    for_each_leaf(expr, [&](const auto& leaf) {
      if constexpr (detail::is_tensor_v<std::remove_cvref_t<decltype(leaf)>>) {
        detail::tensor_impl<T>* impl = leaf.impl();
        if (!impl)
          throw value_error(std::string("fusegrad: an undefined tensor (") + detail::undefined_tensor_causes +
                            ") was used in an operation; assign it a tensor first, or test defined()");
        if (all.contains(impl)) return;
        all.push_back(impl);
        if constexpr (detail::fused_node<node_type>::deferrable) reads_caller_memory |= impl->storage->borrows();
        // A ScalarTensor assigned a tensor of other rank through a Tensor& (a base-class assignment, which no check of
        // its own sees): the sweep would read one value of it.
        if constexpr (std::is_same_v<typename std::remove_cvref_t<decltype(leaf)>::static_shape, Shape<>>)
          if (impl->extents.rank() != 0)
            throw shape_error("fusegrad: a ScalarTensor holds a tensor of shape " + impl->extents.get().to_string() +
                              " (assigned through a Tensor&); a ScalarTensor has rank 0, shape (): assign it a "
                              "rank-0 tensor, or keep the value a Tensor");
        if (!std::remove_cvref_t<decltype(leaf)>::takes_grad && impl->requires_grad)
          throw graph_error(
              "fusegrad: a ConstTensor requires grad (requires_grad_() was called through a Tensor& to it); its "
              "type says it takes no gradient, so none would be computed. Use a Tensor for values to differentiate");
        if (one_walk && impl->requires_grad) needing_grad.push_back(impl);
      }
    });
    if constexpr (!one_walk)
      for_each_leaf_taking_grad(expr, [&](const auto& leaf) {
        if constexpr (detail::is_tensor_v<std::remove_cvref_t<decltype(leaf)>>) {
          detail::tensor_impl<T>* impl = leaf.impl();
          if (impl->requires_grad && !needing_grad.contains(impl)) needing_grad.push_back(impl);
        }
      });
    const Extents extents = expr.extents();
    if constexpr (detail::is_view_of_tensor<node_type>()) {
      detail::tensor_impl<T>& source = *std::get<0>(expr.args).impl();
      (void)source.data();  // a deferred value is computed first: the view shows it
      BasicTensor<T> view(!is_grad_enabled() || needing_grad.empty()
                              ? detail::ref<detail::tensor_impl<T>>::make(extents, source.storage)
                              : detail::record_node_over<T, detail::fused_node<node_type>>(
                                    extents, source.storage, std::forward<E>(expr), extents, needing_grad, all));
      view.impl()->is_view = true;
      // Not recorded (grad mode off): a view of a result, or of such a view, that check_in_place must still refuse.
      view.impl()->views_grad_result = !view.impl()->grad_fn && (source.grad_fn || source.views_grad_result);
      return view;
    }
    if (!is_grad_enabled() || needing_grad.empty()) {
      BasicTensor<T> out = BasicTensor<T>::empty(extents);
      if constexpr (detail::flat_op<node_type>::applies)
        detail::flat_op<node_type>::value(expr, extents.size(), out.impl()->storage->data);
      else
        detail::evaluate_into(expr, extents, out.impl()->storage->data);
      return out;
    }
    using recorded = detail::fused_node<node_type>;
    const bool defer =
        recorded::deferrable && extents.size() == 1 && !detail::anomaly_detection && !reads_caller_memory;
    if constexpr (recorded::deferrable)
      if (defer) detail::check_materialized_extents_below(expr);  // what evaluating it now would report
    BasicTensor<T> out(detail::record_node<T, recorded>(extents, std::forward<E>(expr), extents, needing_grad, all));
    detail::tensor_impl<T>& result = *out.impl();
    auto& node = static_cast<recorded&>(*result.grad_fn);
    if (defer) {
      node.defer_value(result);
    } else {
      node.evaluate(result.storage->data);
      if constexpr (recorded::keeps_output) node.keep_output(result.storage);
    }
    return out;
  }
}

namespace detail {
// fused(expr) for a BasicTensor<T>: an expression of another scalar type is one diagnostic, before any conversion is
// tried (a constructor's body runs after its delegation).
template <Scalar T, class E>
BasicTensor<T> fused_as(E&& expr) {
  constexpr bool same = std::is_same_v<typename std::remove_cvref_t<E>::value_type, T>;
  // A Var, or a Const that views memory: a leaf that no tensor can hold (an owning Const is recorded as a constant).
  constexpr bool unrecordable_leaf = unrecordable_leaf_v<std::remove_cvref_t<E>>;
  static_assert(same,
                "fusegrad::Tensor: the expression's scalar type differs from the tensor's; record a float expression "
                "as a fg::FloatTensor (a double one as a fg::Tensor), or cast a tensor first: t.to<double>()");
  static_assert(
      !same || !unrecordable_leaf,
      "fusegrad::Tensor: a Var (or a view Const) is a leaf of static expressions, not a Tensor; make a Tensor "
      "of its values, fg::Tensor::from(x.value(), x.extents()) (fg::FloatTensor::from for a float Var), and "
      "requires_grad_() for a parameter");
  if constexpr (same && !unrecordable_leaf)
    return fused(std::forward<E>(expr));
  else
    return BasicTensor<T>();
}
}  // namespace detail

template <Scalar T>
template <class E>
  requires(Differentiable<std::remove_cvref_t<E>> && !detail::is_tensor_v<std::remove_cvref_t<E>>)
BasicTensor<T>::BasicTensor(E&& expr) : BasicTensor(detail::fused_as<T>(std::forward<E>(expr))) {}

}  // namespace fusegrad
