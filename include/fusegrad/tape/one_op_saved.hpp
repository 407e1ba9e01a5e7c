// tape/one_op_saved.hpp -- one_op_saved: what a tape node of one element-wise op keeps from recording for its VJP.
#pragma once

#include <cassert>
#include <cstddef>
#include <type_traits>
#include <utility>

#include <fusegrad/concepts.hpp>
#include <fusegrad/expr/unary_expr.hpp>
#include <fusegrad/tape/flat_op.hpp>
#include <fusegrad/tape/ref_counted.hpp>
#include <fusegrad/tape/tensor_storage.hpp>

namespace fusegrad::detail {

// A node of one element-wise op (flat_op<E>::applies) runs its op on whole arrays, and two kinds of op have values
// from recording that spare their backward a function evaluation:
// - an op whose VJP reads the op's values (exp, tanh, sqrt, div ...) keeps the output's storage (keeps_output), as
//   PyTorch's ExpBackward saves its result: computing the values again in backward would double the op's cost;
// - an op that gives its value with its slope for about the cost of the value alone (sin and cos, from one argument
//   reduction: TakesValueWithSlope) computes both at recording and keeps the slope (keeps_slope): its VJP multiplies
//   by it, where it would otherwise compute cos (or sin) of the operand again. PyTorch's SinBackward computes cos(x)
//   again; this holds n values more until the node's saved values are released (after its backward, or with
//   retain_graph when the graph goes), for one function evaluation less.
// One value keeps neither: its VJP computes it again, in a register. Any other node holds an empty one_op_saved.
template <class E>
class one_op_saved {
  using T = typename E::value_type;
  static constexpr bool single_op = flat_op<E>::applies;

 public:
  static constexpr bool keeps_output = [] {
    if constexpr (single_op)
      return needs_output(E::op::needs);
    else
      return false;
  }();
  static constexpr bool keeps_slope = [] {
    if constexpr (single_op && is_unary_expr_v<E>)
      return TakesValueWithSlope<typename E::op, T>;
    else
      return false;
  }();

  // Computes the op's n values into out, and with them the slope where it keeps one.
  void evaluate(const E& expr, std::size_t n, T* out) requires single_op {
    if constexpr (keeps_slope) {
      if (n > 1) {
        ref<tensor_storage<T>> slope = tensor_storage<T>::owning(n);
        flat_op<E>::value_and_slope(expr, n, out, slope->data);
        slope_ = std::move(slope);
        return;
      }
    }
    flat_op<E>::value(expr, n, out);
  }

  // Called once the output's n values are computed, with their storage.
  void keep_output(const ref<tensor_storage<T>>& values, std::size_t n) noexcept requires keeps_output {
    if (n <= 1) return;
    assert(values->version == 0 && "one_op_saved::keep_output: the storage is the one record_node made with the node");
    output_ = values;
  }

  // The op's values as recorded, where nothing has written them in place since (the storage, made with the node by
  // record_node, counts in-place writes from 0); otherwise null, and the VJP computes them again.
  [[nodiscard]] const T* output() const noexcept {
    if constexpr (keeps_output)
      if (output_ && output_->version == 0) return output_->data;
    return nullptr;
  }

  // The slope computed with the values, or null. The operand cannot have changed since: the node's check_runnable()
  // refuses a backward after an in-place write to it.
  [[nodiscard]] const T* slope() const noexcept {
    if constexpr (keeps_slope)
      if (slope_) return slope_->data;
    return nullptr;
  }

  void release() noexcept {
    if constexpr (keeps_output) output_ = {};
    if constexpr (keeps_slope) slope_ = {};
  }

 private:
  struct no_output {};  // two types: two empty members of one type would take a byte each
  struct no_slope {};
  [[no_unique_address]] std::conditional_t<keeps_output, ref<tensor_storage<T>>, no_output> output_;
  [[no_unique_address]] std::conditional_t<keeps_slope, ref<tensor_storage<T>>, no_slope> slope_;
};

}  // namespace fusegrad::detail
