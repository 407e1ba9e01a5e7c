// tape/tensor_backward.hpp -- Tensor::backward: what it checks of the tensor and the upstream gradient before it hands
// them to the engine (tape/backward.hpp).
#pragma once

#include <string>

#include <fusegrad/error.hpp>
#include <fusegrad/tape/backward.hpp>
#include <fusegrad/tape/basic_tensor.hpp>

namespace fusegrad {

namespace detail {
[[noreturn]] inline void throw_backward_without_grad(const char* call) {
  throw graph_error(std::string(call) +
                    ": this tensor does not require grad: nothing that produced it requires grad (call "
                    "requires_grad_() on the parameters before computing it), it was computed under an "
                    "fg::NoGradGuard or from a detach(), or it is a comparison's mask or argmax/argmin's indices, "
                    "which pass none");
}
}  // namespace detail

template <Scalar T>
void BasicTensor<T>::backward(BackwardOptions options) const {
  if (!checked().requires_grad) detail::throw_backward_without_grad("fusegrad::Tensor::backward()");
  if (numel() != 1)
    throw graph_error("fusegrad::Tensor::backward(): the tensor has shape " + shape().to_string() +
                      "; backward() without a gradient needs a one-element tensor. Reduce it (sum, mean) or pass "
                      "the upstream gradient: t.backward(gradient)");
  const T seed(1);
  detail::run_backward(*impl_, &seed, options.retain_graph);
}

template <Scalar T>
void BasicTensor<T>::backward(const BasicTensor& gradient, BackwardOptions options) const {
  if (!checked().requires_grad) detail::throw_backward_without_grad("fusegrad::Tensor::backward(gradient)");
  if (!(gradient.shape() == shape()))
    throw shape_error("fusegrad::Tensor::backward(gradient): the gradient has shape " + gradient.shape().to_string() +
                      " but the tensor has shape " + shape().to_string() +
                      "; pass a gradient of the tensor's shape (the upstream gradient, one value per element)");
  detail::run_backward(*impl_, gradient.data(), options.retain_graph);
}

}  // namespace fusegrad
