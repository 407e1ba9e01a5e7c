// tape/tensor_sinks.hpp -- tensor_sinks: where a recorded expression's tensor leaves send their gradients.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>

#include <fusegrad/expr/leaf.hpp>
#include <fusegrad/expr/leaf_uses.hpp>
#include <fusegrad/expr/sweep/protocol.hpp>
#include <fusegrad/tape/basic_tensor.hpp>
#include <fusegrad/tape/node.hpp>

namespace fusegrad::detail {

// Routes each tensor leaf occurrence to the gradient destination of the node input it is;
// other leaves (numbers, ConstTensors, tensors that take no gradient) send nowhere.
//
// After take_unfilled(), sole_sink_for(leaf) also gives the destination of an input that the sweep writes whole:
// one that holds nothing yet (made for this backward), whose tensor occurs once in the expression, as the operand
// of a materialised node that a gradient reaches. That node's VJP goes straight there (as basic_var_sinks does
// for the static layer).
template <class T>
struct tensor_sinks {
  std::span<const edge<T>> inputs;
  std::span<T* const> grads;
  std::uint64_t sole = 0;  // bit k: grads[k] is written whole by the one VJP that reaches it

  template <class L>
  typename L::value_type* sink_for(const L& leaf) const {
    const std::size_t k = input_of(leaf);
    return k < inputs.size() ? grads[k] : nullptr;
  }

  // Whether the destination of `leaf` holds nothing yet (bit k of `unfilled`, as the engine hands them).
  template <class L>
  [[nodiscard]] bool holds_nothing(const L& leaf, std::uint64_t unfilled) const {
    const std::size_t k = input_of(leaf);
    return k < inputs.size() && k < 64 && (unfilled >> k & 1);
  }

  template <class L>
  typename L::value_type* sole_sink_for(const L& leaf) const {
    const std::size_t k = input_of(leaf);
    return k < 64 && (sole >> k & 1) ? grads[k] : nullptr;
  }

  // Given the inputs whose destinations hold nothing yet (bit k: grads[k]), finds those the sweep of `expr` writes
  // whole, and zero-fills the others.
  template <class E>
  void take_unfilled(const E& expr, std::uint64_t unfilled) {
    std::uint64_t seen = 0, twice = 0, whole = 0;
    for_each_leaf_use(expr, [&](const auto& leaf, bool written_whole_there) {
      const std::size_t k = input_of(leaf);
      if (k >= inputs.size() || k >= 64) return;
      const std::uint64_t bit = std::uint64_t(1) << k;
      if (seen & bit) twice |= bit;
      seen |= bit;
      whole = written_whole_there ? whole | bit : whole & ~bit;
    });
    sole = unfilled & seen & ~twice & whole;
    for (std::size_t k = 0; k < inputs.size() && k < 64; ++k)
      if ((unfilled & ~sole) >> k & 1) std::fill_n(grads[k], size_of(inputs[k]), T(0));
  }

 private:
  // The index of the input `leaf` is, or inputs.size().
  template <class L>
  [[nodiscard]] std::size_t input_of(const L& leaf) const {
    if constexpr (is_tensor_v<L> && L::takes_grad) {
      for (std::size_t k = 0; k < inputs.size(); ++k)
        if (inputs[k].input == leaf.impl()) return k;
    }
    return inputs.size();
  }

  static std::size_t size_of(const edge<T>& e) { return e.fn ? e.fn->size : e.input->extents.size(); }
};
// take_unfilled leaves the sole destinations without zeros: the sweep must find sole_sink_for (SoleSinks, checked in
// tests/static/protocols_static_test.cpp).

}  // namespace fusegrad::detail
