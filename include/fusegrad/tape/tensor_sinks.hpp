// tape/tensor_sinks.hpp -- tensor_sinks: where a recorded expression's tensor leaves send their gradients.
#pragma once

#include <cstddef>
#include <span>

#include <fusegrad/expr/leaf.hpp>
#include <fusegrad/tape/basic_tensor.hpp>
#include <fusegrad/tape/node.hpp>

namespace fusegrad::detail {

// Routes each tensor leaf occurrence to the gradient destination of the node input it is;
// other leaves (numbers, ConstTensors, tensors that take no gradient) send nowhere.
template <class T>
struct tensor_sinks {
  std::span<const edge<T>> inputs;
  std::span<T* const> grads;

  template <class L>
  typename L::value_type* sink_for(const L& leaf) const {
    if constexpr (is_tensor_v<L> && L::takes_grad) {
      for (std::size_t k = 0; k < inputs.size(); ++k)
        if (inputs[k].input == leaf.impl()) return grads[k];
    }
    return nullptr;
  }
};

}  // namespace fusegrad::detail
