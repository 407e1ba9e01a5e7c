// nn/activations.hpp -- activations as layers (ReLU, Tanh, Sigmoid), for nn::Sequential.
#pragma once

#include <fusegrad/ops/relu.hpp>
#include <fusegrad/ops/sigmoid.hpp>
#include <fusegrad/ops/tanh.hpp>
#include <fusegrad/tape/tensor.hpp>  // what the activations return is recorded (fused.hpp)

namespace fusegrad::nn {

/// relu(x), as a layer (PyTorch's nn.ReLU); it has no parameters.
struct ReLU {
  template <class T>
  [[nodiscard]] BasicTensor<T> operator()(const BasicTensor<T>& x) const {
    return relu(x);
  }
};
/// tanh(x), as a layer.
struct Tanh {
  template <class T>
  [[nodiscard]] BasicTensor<T> operator()(const BasicTensor<T>& x) const {
    return tanh(x);
  }
};
/// sigmoid(x), as a layer.
struct Sigmoid {
  template <class T>
  [[nodiscard]] BasicTensor<T> operator()(const BasicTensor<T>& x) const {
    return sigmoid(x);
  }
};

}  // namespace fusegrad::nn
