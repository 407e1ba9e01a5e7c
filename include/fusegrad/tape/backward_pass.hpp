// tape/backward_pass.hpp -- backward_root: where a backward starts; backward_pass: the part of a backward that runs
// one scalar type's graph.
#pragma once

#include <memory>

#include <fusegrad/concepts.hpp>

namespace fusegrad::detail {

template <Scalar T>
struct tensor_impl;

// Where a backward starts: a tensor and the gradient arriving at it.
template <class T>
struct backward_root {
  tensor_impl<T>* tensor;
  const T* seed;  // shaped like the tensor
};

// A backward through a graph that casts between float and double runs one pass per graph it reaches: the pass of
// the roots' type, then the pass that its casts lead into, and so on; then each pass finishes, the last started
// first. The engine keeps the started passes in a list, not in nested calls: a graph that changes type a few
// thousand times would overflow the stack.
struct backward_pass {
  virtual ~backward_pass() = default;
  /// Runs the nodes of this pass's graph; returns the pass that its casts lead into, or null.
  virtual std::unique_ptr<backward_pass> run() = 0;
  /// Adds the gradients the pass kept aside and releases the graph, once the passes it led into have finished.
  virtual void finish() = 0;
};

}  // namespace fusegrad::detail
