// tape/functional_grad.hpp -- fg::grad(output, inputs): gradients returned, not added to .grad() (torch.autograd.grad).
#pragma once

#include <cstddef>
#include <initializer_list>
#include <span>
#include <string>
#include <vector>

#include <fusegrad/error.hpp>
#include <fusegrad/tape/backward.hpp>
#include <fusegrad/tape/basic_tensor.hpp>
#include <fusegrad/tape/tensor_factories.hpp>
#include <fusegrad/tape/tensor_impl.hpp>
#include <fusegrad/tape/undefined_tensor.hpp>
#include <fusegrad/tape/walk_graph.hpp>

namespace fusegrad {

namespace detail {
// Which of `wanted` the graph that produced `output` reads (the output itself counts), found
// before any backward runs, so that an input the output does not use is reported while the
// graph is still whole.
template <class T>
std::vector<bool> reached_inputs(tensor_impl<T>& output, std::span<tensor_impl<T>* const> wanted) {
  std::vector<bool> reached(wanted.size(), false);
  graph_walk walk;
  walk.on_tensor = [&](const void* t) {
    for (std::size_t k = 0; k < wanted.size(); ++k)
      if (wanted[k] == t) reached[k] = true;
  };
  walk_graph(output, walk);
  return reached;
}
}  // namespace detail

/// What fg::grad takes beside the output and the inputs.
template <Scalar T>
struct GradOptions {
  BasicTensor<T> grad_output{};  // the upstream gradient, shaped like the output; none for a one-element output
  bool retain_graph = false;     // keep what backward reads, so that it can run again
  bool allow_unused = false;     // an input the output does not depend on gets an undefined tensor, not an error
};

/// The gradients of `output` with respect to each of `inputs` (leaves or intermediate tensors),
/// returned in their order, as PyTorch's torch.autograd.grad: no tensor's grad() changes, and
/// retain_grad() marks are not filled. `fg::grad(loss, {w, b})`; for a non-scalar output, pass
/// `{.grad_output = g}`. Throws value_error for no inputs or an undefined tensor, graph_error for an input that does
/// not require grad, or (unless allow_unused) that the output does not depend on; nothing changes then.
template <Scalar T>
[[nodiscard]] std::vector<BasicTensor<T>> grad(const BasicTensor<T>& output, std::span<const BasicTensor<T>> inputs,
                                               const GradOptions<T>& options = {}) {
  const char* what = "fusegrad::grad(output, inputs)";
  if (!output.defined())
    throw value_error(std::string(what) + ": the output is an undefined tensor (" + detail::undefined_tensor_causes +
                      "); pass the tensor to differentiate");
  if (inputs.empty())
    throw value_error(std::string(what) +
                      ": no inputs; name the tensors whose gradients you want, as in "
                      "fg::grad(loss, {w, b})");
  if (!output.requires_grad())
    throw graph_error(std::string(what) +
                      ": the output does not require grad: nothing that produced it requires grad (call "
                      "requires_grad_() on the inputs before computing the output), or it was computed under an "
                      "fg::NoGradGuard or from a detach()");
  std::vector<detail::tensor_impl<T>*> wanted;
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    if (!inputs[k].defined())
      throw value_error(std::string(what) + ": input " + std::to_string(k) + " is an undefined tensor (" +
                        detail::undefined_tensor_causes + "); pass the tensor whose gradient you want");
    if (!inputs[k].requires_grad())
      throw graph_error(std::string(what) + ": input " + std::to_string(k) +
                        " does not require grad, so it has no gradient (call requires_grad_() on it before "
                        "computing the output)");
    wanted.push_back(inputs[k].impl());
  }
  const T one(1);
  const T* seed = &one;
  if (options.grad_output.defined()) {
    if (!(options.grad_output.shape() == output.shape()))
      throw shape_error(std::string(what) + ": grad_output has shape " + options.grad_output.shape().to_string() +
                        " but the output has shape " + output.shape().to_string() +
                        "; pass a grad_output of the output's shape");
    seed = options.grad_output.data();
  } else if (output.numel() != 1) {
    throw graph_error(std::string(what) + ": the output has shape " + output.shape().to_string() +
                      "; without grad_output it must have one element ({.grad_output = g} gives the upstream "
                      "gradient)");
  }
  if (!options.allow_unused) {
    const std::vector<bool> reached =
        detail::reached_inputs(*output.impl(), std::span<detail::tensor_impl<T>* const>(wanted));
    for (std::size_t k = 0; k < inputs.size(); ++k)
      if (!reached[k])
        throw graph_error(std::string(what) + ": input " + std::to_string(k) +
                          " is not used in computing the output; pass {.allow_unused = true} to get an undefined "
                          "tensor for it instead");
  }
  detail::gradient_capture<T> capture{wanted, {}};
  detail::run_backward(*output.impl(), seed, options.retain_graph, &capture);
  std::vector<BasicTensor<T>> grads;
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    const auto found = capture.grads.find(wanted[k]);
    if (found == capture.grads.end()) {  // not reached (allow_unused)
      grads.emplace_back();
      continue;
    }
    const detail::small_buffer<T>& g = found->second;
    grads.push_back(BasicTensor<T>::from(std::span<const T>(g.data(), inputs[k].numel()), inputs[k].shape()));
  }
  return grads;
}
template <Scalar T>
[[nodiscard]] std::vector<BasicTensor<T>> grad(const BasicTensor<T>& output,
                                               std::initializer_list<BasicTensor<T>> inputs,
                                               const GradOptions<T>& options = {}) {
  return grad(output, std::span<const BasicTensor<T>>(inputs.begin(), inputs.size()), options);
}
template <Scalar T>
[[nodiscard]] std::vector<BasicTensor<T>> grad(const BasicTensor<T>& output, const std::vector<BasicTensor<T>>& inputs,
                                               const GradOptions<T>& options = {}) {
  return grad(output, std::span<const BasicTensor<T>>(inputs), options);
}

}  // namespace fusegrad
