// tape/node.hpp -- a recorded operation (node) and the edges to the nodes and leaves it reads.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include <fusegrad/concepts.hpp>
#include <fusegrad/detail/buffer.hpp>
#include <fusegrad/error.hpp>
#include <fusegrad/tape/recorded_block.hpp>
#include <fusegrad/tape/ref_counted.hpp>

namespace fusegrad::detail {

template <Scalar T>
struct tensor_impl;
template <Scalar T>
struct node;

// Where a node sends the gradient of one of its inputs: the node that produced that input,
// or, for a leaf, the leaf itself (PyTorch's AccumulateGrad). The leaf is not owned: the
// node's saved inputs hold it for as long as the node can run backward, and a released
// node never reads its edges' leaves (sparing two atomic operations per leaf input).
template <Scalar T>
struct edge {
  ref<node<T>> fn;
  tensor_impl<T>* leaf = nullptr;
};

// A recorded operation. Subclasses say how to compute its value and its VJP; the engine
// (tape/backward.hpp) owns the traversal. Graphs are owned by the tensors that reference
// them: a node lives while its output or a later node needs it.
template <Scalar T>
struct node : ref_counted {
  // A backward's state lives in the nodes it runs (waiting, has_grad, grad_buffer, pass and
  // the two intrusive lists), so that it moves no node through a container (tape/backward.hpp).
  // The small fields come first, where they fill ref_counted's padding: nodes are many.
  std::uint32_t waiting = 0;  // consumers inside this graph that have not yet sent their gradient
  bool has_grad = false;      // grad_buffer holds this backward's gradient
  bool released = false;      // an earlier backward dropped what backward reads
  std::span<edge<T>> inputs;  // one per distinct input that requires grad (storage: the subclass)
  std::size_t size = 0;       // elements of the output (its extents are the output tensor's)
  // Not owning: cleared when the output tensor dies, which a backward on another thread may
  // be reading (see tensor_impl::leave).
  std::atomic<tensor_impl<T>*> output = nullptr;
  small_buffer<T> grad_buffer;
  std::uint64_t pass = 0;           // the backward that last reached this node
  node* next_visited = nullptr;     // the nodes this pass reached, in the order it found them
  node* next_ready = nullptr;       // the nodes whose consumers have all sent their gradient
  recorded_block* block = nullptr;  // the allocation shared with the output (see record_node)

  // Where gradients for this node's output are added; zeroed by the first sender.
  T* grad_destination() {
    if (!has_grad) {
      grad_buffer.resize(size);
      if (size == 1)  // a scalar tensor's: a store, not a call to memset
        grad_buffer[0] = T(0);
      else
        std::fill_n(grad_buffer.data(), size, T(0));
      has_grad = true;
    }
    return grad_buffer.data();
  }

  /// The name in errors, PyTorch style: "MulBackward", "FusedBackward".
  [[nodiscard]] virtual std::string name() const = 0;
  /// The expression the node computes, over its inputs; errors quote it.
  [[nodiscard]] virtual std::string expression() const = 0;
  /// Writes the output values (`size` of them).
  virtual void compute_value(T* out) = 0;
  /// Given dL/d(output), ADDS dL/d(input k) into input_grads[k] (input-shaped memory: the
  /// leaf's gradient or the producing node's buffer, so no gradient is copied twice).
  /// When `value_out` is not null the node also writes its output values there (a deferred
  /// value computed in the same pass as the gradient).
  virtual void backward(const T* grad_output, std::span<T* const> input_grads, T* value_out) = 0;
  /// Throws graph_error if backward cannot run (an input it read was changed in place);
  /// the engine asks every node of a graph before running any.
  virtual void check_runnable() const = 0;
  /// Drops what backward would read (called when a backward runs without retain_graph).
  virtual void release_saved() noexcept = 0;
  /// The output's deferred value is computed, or no longer wanted: stop being a deferred reader.
  virtual void value_settled() noexcept {}
  /// An input is about to change in place: compute the deferred output value now.
  virtual void settle_value() = 0;
  /// The first op of the node that is not analytic (abs, relu ...), or empty: whether the
  /// complex step can check a graph through it (fg::gradcheck).
  [[nodiscard]] virtual std::string_view non_analytic_op() const noexcept = 0;

 private:
  void destroy() noexcept override { recorded_block::destroy_part(this); }
};

// What backward through a part of the graph that an earlier backward freed throws.
inline graph_error freed_graph_error(const std::string& node_name) {
  return graph_error("fusegrad: part of the graph (" + node_name +
                     ") was freed by an earlier backward; pass retain_graph=true to the first backward "
                     "(loss.backward({.retain_graph = true})) to backpropagate through it again");
}

}  // namespace fusegrad::detail
