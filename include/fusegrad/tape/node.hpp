// tape/node.hpp -- a recorded operation (node) and the edges to the nodes and leaves it reads.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <span>
#include <string>
#include <string_view>

#include <fusegrad/concepts.hpp>
#include <fusegrad/detail/buffer.hpp>  // allocate_heap_values
#include <fusegrad/error.hpp>
#include <fusegrad/tape/across_visitor.hpp>
#include <fusegrad/tape/backward_pass.hpp>
#include <fusegrad/tape/recorded_block.hpp>
#include <fusegrad/tape/ref_counted.hpp>

namespace fusegrad {
struct expression_graph;
}  // namespace fusegrad

namespace fusegrad::detail {

template <Scalar T>
struct tensor_impl;
template <Scalar T>
struct node;
template <class T>
struct gradient_capture;

// Where a node sends the gradient of one of its inputs: the node that produced that input,
// or, for a leaf, the leaf itself (PyTorch's AccumulateGrad). The input is not owned: the
// node's saved inputs hold it for as long as the node can run backward, and a released
// node never reads it (sparing two atomic operations per input).
template <Scalar T>
struct edge {
  ref<node<T>> fn;                  // the node that produced the input; null for a leaf
  tensor_impl<T>* input = nullptr;  // the input itself
};

// Why a node can no longer run backward (node::released); 0 while it can.
enum release_reason : std::uint8_t {
  not_released = 0,
  released_after_backward,  // an earlier backward ran it and dropped what its backward reads
  released_after_failure,   // an earlier backward failed inside it, which may have added part of its gradients
};

// A recorded operation. Subclasses say how to compute its value and its VJP; the engine
// (tape/typed_backward_pass.hpp) owns the traversal. Graphs are owned by the tensors that reference
// them: a node lives while its output or a later node needs it. A taped graph holds one per op: every field is
// sized for that (88 bytes on 64-bit systems, checked in tests/static/protocols_static_test.cpp).
template <Scalar T>
struct node : ref_counted<node<T>> {
  // A backward's state lives in the nodes it runs (waiting, has_grad, the gradient, pass
  // and the two intrusive lists), so that it moves no node through a container
  // (tape/typed_backward_pass.hpp). The small fields come first, after the 4-byte count.
  std::uint32_t waiting = 0;               // consumers inside this graph that have not yet sent their gradient
  bool has_grad = false;                   // this backward's gradient for the output is held (grad_data)
  release_reason released = not_released;  // tests as true once backward may not run it again
  std::uint16_t block_offset = 0;          // from the recorded_block it lives in (record_node); 0: its own allocation
  std::uint32_t input_count = 0;
  edge<T>* input_edges = nullptr;  // one per distinct input that requires grad (storage: the subclass)
  std::size_t size = 0;            // elements of the output (its extents are the output tensor's)
  // Not owning: cleared when the output tensor dies, which a backward on another thread may
  // be reading (see tensor_impl::leave).
  std::atomic<tensor_impl<T>*> output = nullptr;

 private:
  // The gradient of the output while a backward holds it: one value in place, more on the heap.
  union gradient {
    T one;
    struct {
      T* data;
      std::size_t bytes;
    } heap;
    gradient() noexcept : heap{nullptr, 0} {}
  } grad_;

 public:
  std::uint64_t pass = 0;        // the backward that last reached this node
  node* next_visited = nullptr;  // the nodes this pass reached, in the order it found them
  // The nodes whose consumers have all sent their gradient; once the count is zero (no
  // backward can reach the node then), the queue of nodes waiting for destruction.
  node* next_ready = nullptr;

  node() = default;
  virtual ~node() { drop_grad(); }

  [[nodiscard]] std::span<edge<T>> inputs() const noexcept { return {input_edges, input_count}; }
  // Whether the node is a cast: its input is in a graph of the other scalar type, which no edge can point into
  // (tape/cast.hpp). Every other node has an edge: one is recorded only where an input requires grad.
  [[nodiscard]] bool leads_across() const noexcept { return input_count == 0; }

  // Holds a gradient for the output (uninitialised) and returns it.
  T* hold_grad() {
    if (size == 1) {
      ::new (&grad_.one) T;
    } else {
      std::size_t bytes = size * sizeof(T);
      grad_.heap.data = static_cast<T*>(allocate_heap_values(bytes));
      grad_.heap.bytes = bytes;
    }
    has_grad = true;
    return grad_data();
  }
  // Where gradients for this node's output are added; zeroed by the first sender.
  T* grad_destination() {
    if (!has_grad) {
      T* g = hold_grad();
      if (size == 1)  // a scalar tensor's: a store, not a call to memset
        g[0] = T(0);
      else
        std::fill_n(g, size, T(0));
    }
    return grad_data();
  }
  // As grad_destination(), without the zeros: `unfilled` is set when the buffer is made by this call and holds
  // nothing yet, and the caller then writes all of it.
  T* grad_destination_unfilled(bool& unfilled) {
    if (!has_grad) {
      hold_grad();
      unfilled = true;
    }
    return grad_data();
  }
  [[nodiscard]] T* grad_data() noexcept { return size == 1 ? &grad_.one : grad_.heap.data; }
  // Lets the gradient go (after the node ran, or when a backward failed).
  void drop_grad() noexcept {
    if (!has_grad) return;
    if (size != 1) free_heap_values(grad_.heap.data, grad_.heap.bytes);
    has_grad = false;
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
  /// value computed in the same pass as the gradient). Where bit k of `unfilled` is set,
  /// input_grads[k] was made for this call and holds nothing yet: the node writes it whole
  /// (`=`) or zero-fills it first. Only a node whose takes_unfilled_grads() says so gets any.
  virtual void backward(const T* grad_output, std::span<T* const> input_grads, std::uint64_t unfilled,
                        T* value_out) = 0;
  /// Whether backward() may be handed destinations that hold nothing yet: a node that can
  /// write some input's gradient whole skips the zeros and the pass that adds to them.
  [[nodiscard]] virtual bool takes_unfilled_grads() const noexcept { return false; }
  /// Throws graph_error if backward cannot run (an input it read was changed in place);
  /// the engine asks every node of a graph before running any.
  virtual void check_runnable() const = 0;
  /// Drops what backward would read: after the node ran in a backward without retain_graph, after it threw part-way
  /// (tape/typed_backward_pass.hpp), or from release_graph. Each caller then sets `released` to say why.
  virtual void release_saved() noexcept = 0;
  /// The output's deferred value is computed, or no longer wanted: stop being a deferred reader.
  virtual void value_settled() noexcept {}
  /// An input is about to change in place: compute the deferred output value now.
  virtual void settle_value() = 0;
  /// The first op of the node that is not analytic (abs, relu ...), or empty: whether the
  /// complex step can check a graph through it (fg::gradcheck).
  [[nodiscard]] virtual std::string_view non_analytic_op() const noexcept = 0;
  /// Adds the static expression the node computes to `out` (pictures of the graph, fg::to_dot);
  /// its tensor leaves are identified by their tensor_impl. Nothing for a node that holds none.
  virtual void add_expression(expression_graph& /*out*/) const {}

  // A node that leads across (a cast, tape/cast.hpp) leads into a graph of another scalar type:
  // its backward keeps the gradient for that graph, which the engine backpropagates in a pass of
  // its own after this graph's (pass_across); walks and releases follow it (visit_across).
  /// The pass through the other scalar type's graph from `crossings` (every node that leads
  /// across that this pass ran, this one among them), with the gradients they kept.
  [[nodiscard]] virtual std::unique_ptr<backward_pass> pass_across(std::span<const ref<node>> /*crossings*/,
                                                                   gradient_capture<T>* /*capture*/) {
    return nullptr;
  }
  /// Shows `visitor` the tensor of the other scalar type this node reads, if it still holds it.
  virtual void visit_across(across_visitor& /*visitor*/) const {}

 private:
  friend class ref_counted<node>;
  // Dropping the last reference to the head of a 1,000,000-node chain would destroy the
  // chain recursively and overflow the stack, so a node whose count reaches zero while
  // another is being destroyed is queued, and the outermost destruction drains the queue in
  // a loop. Only nodes queue: a tensor or a storage destroyed meanwhile releases at most a
  // node, so the depth stays bounded. The queue is linked through the nodes themselves:
  // queueing allocates nothing, so it cannot fail.
  struct pending_destruction {
    node* head = nullptr;
    bool draining = false;
    static pending_destruction& of_this_thread() noexcept {
      thread_local constinit pending_destruction list;  // trivial: no initialisation guard
      return list;
    }
  };
  void destroy() noexcept {
    pending_destruction& pending = pending_destruction::of_this_thread();
    if (pending.draining) {
      next_ready = pending.head;
      pending.head = this;
      return;
    }
    pending.draining = true;
    dispose();
    while (node* next = pending.head) {
      pending.head = next->next_ready;
      next->dispose();
    }
    pending.draining = false;
  }
  void dispose() noexcept {
    if (block_offset == 0)
      delete this;
    else
      recorded_block::destroy_part(this, block_offset);
  }
};
// Its size is checked in tests/static/protocols_static_test.cpp: here every translation unit would pay for it.

// What backward through a part of the graph that an earlier backward released throws.
inline graph_error freed_graph_error(const std::string& node_name, release_reason why = released_after_backward) {
  if (why == released_after_failure)
    return graph_error("fusegrad: an earlier backward failed inside part of the graph (" + node_name +
                       ") after it may have added part of its gradients, which are partial; zero them (zero_grad) and "
                       "record the graph again (a backward under DetectAnomalyGuard that fails changes nothing)");
  return graph_error("fusegrad: part of the graph (" + node_name +
                     ") was freed by an earlier backward or fg::grad; pass retain_graph=true to the first one "
                     "(loss.backward({.retain_graph = true}), fg::grad(loss, {w}, {.retain_graph = true})) to "
                     "backpropagate through it again");
}

}  // namespace fusegrad::detail
