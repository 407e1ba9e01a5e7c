// tape/backward_pass.hpp -- backward_root: where a backward starts; backward_pass: the part of a backward that runs
// one scalar type's graph, and run_passes_across: the passes that casts lead into, one after the other.
#pragma once

#include <memory>
#include <utility>
#include <vector>

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

// Runs the passes that casts lead into, each started by the one before it, then finishes them, the last started
// first: what nested calls would do, with the started passes in a list instead of on the stack.
inline void run_passes_across(std::unique_ptr<backward_pass> next) {
  std::vector<std::unique_ptr<backward_pass>> started;
  try {
    while (next) {
      started.push_back(std::move(next));
      next = started.back()->run();
    }
    while (!started.empty()) {
      started.back()->finish();
      started.pop_back();
    }
  } catch (...) {
    while (!started.empty()) started.pop_back();  // the last started first, as nested calls unwind
    throw;
  }
}

}  // namespace fusegrad::detail
