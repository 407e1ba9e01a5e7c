// tape/backward.hpp -- run_backward: where a backward pass starts (its traversal: tape/typed_backward_pass.hpp).
#pragma once

#include <memory>
#include <span>
#include <utility>

#include <fusegrad/tape/backward_pass.hpp>
#include <fusegrad/tape/gradient_capture.hpp>
#include <fusegrad/tape/graph_lock.hpp>
#include <fusegrad/tape/tensor_impl.hpp>
#include <fusegrad/tape/typed_backward_pass.hpp>

namespace fusegrad::detail {

// Backpropagates seeds through the graph that produced the roots: each root's seed (shaped like it) is
// the gradient arriving at it. Each node runs once, after every consumer of its output has sent its
// gradient (Kahn's algorithm on the reverse graph), so diamonds, shared sub-graphs and roots that feed
// each other are right. No recursion: a chain of a million nodes needs no stack. A cast to the other
// type starts one more pass after this one (node::pass_across, tape/backward_pass.hpp), so a graph
// that changes type k times runs up to k + 1 passes, and a node below such changes may run once per
// pass that reaches it, each time with its share of the gradient. Backwards on several threads take
// turns (graph_lock), so graphs that share nodes or leaves get the sum of their gradients. A
// functional backward (fg::grad) passes a gradient_capture, and then no tensor's grad() changes.

// Backpropagates the roots' seeds (see the top of this file).
template <class T>
void run_backward(std::span<const backward_root<T>> roots, bool retain_graph, gradient_capture<T>* capture = nullptr) {
  const graph_lock lock;
  typed_backward_pass<T> pass(roots, retain_graph, capture, /*started_by_cast=*/false);
  if (std::unique_ptr<backward_pass> next = pass.run()) [[unlikely]]
    run_passes_across(std::move(next));
  pass.finish();
}

// One root.
template <class T>
void run_backward(tensor_impl<T>& root, const T* seed, bool retain_graph, gradient_capture<T>* capture = nullptr) {
  const backward_root<T> only{&root, seed};
  run_backward(std::span<const backward_root<T>>(&only, 1), retain_graph, capture);
}

}  // namespace fusegrad::detail
