// tape/graph.hpp -- the dynamic graph's objects: tensor storage, tensor state, recorded nodes.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <new>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <Eigen/Core>

#include <fusegrad/concepts.hpp>
#include <fusegrad/error.hpp>
#include <fusegrad/shape/extents.hpp>
#include <fusegrad/tape/graph_lock.hpp>
#include <fusegrad/tape/pool.hpp>
#include <fusegrad/tape/ref_counted.hpp>

namespace fusegrad::detail {

template <class T>
using array_t = Eigen::Array<T, Eigen::Dynamic, 1>;

template <Scalar T>
struct node;

// A lock for short critical sections on objects that threads may share (a tensor's storage
// read by graphs that several threads record): one atomic flag, no system call.
class spin_lock {
 public:
  void lock() noexcept {
    while (flag_.test_and_set(std::memory_order_acquire)) std::this_thread::yield();
  }
  void unlock() noexcept { flag_.clear(std::memory_order_release); }

 private:
  std::atomic_flag flag_;  // clear (C++20)
};

// One pool block for a recorded node and the tensor it outputs (the tensor's state and the
// storage of its values): recording an operation takes one block, not three. The parts
// die at different times -- the tensor state first (it holds the node), then the node when
// its consumers let go of it, while a detach()ed tensor may keep the values longer -- so the
// block counts its two independent parts, the node and the storage, and the last frees it.
struct recorded_block {
  explicit recorded_block(std::size_t n) noexcept : bytes(static_cast<std::uint32_t>(n)) {}
  std::atomic<std::uint32_t> parts{2};
  std::uint32_t bytes;  // at most object_pool's largest class, or a node type's size

  void part_gone() noexcept {
    if (parts.fetch_sub(1, std::memory_order_acq_rel) == 1) object_pool::deallocate(this, bytes);
  }
  // What the last release of a part does (a node or a storage, whose `block` says where it
  // lives): delete it, or destroy it in place and free the block if it was the last part.
  template <class Part>
  static void destroy_part(Part* part) noexcept {
    recorded_block* b = part->block;
    if (!b) {
      delete part;
      return;
    }
    std::destroy_at(part);  // virtual for a node: the most derived node's destructor
    b->part_gone();
  }
};

// The values of a tensor: owned, or a view of caller memory. Shared by a tensor, its
// detach()ed copies and the nodes that read it. `version` counts in-place writes, so a
// node can tell that a value it will read in backward is no longer the one it was given.
template <Scalar T>
struct tensor_storage final : ref_counted {
  spin_lock readers_lock;  // guards deferred_readers
  small_buffer<T> owned;
  T* data = nullptr;
  std::size_t size = 0;
  std::uint64_t version = 0;
  // Nodes whose deferred value (a fused sum or mean not yet computed) reads these values:
  // an in-place write computes those values first, so they stay the values at recording.
  // Made by the first such node: most storages never have one.
  std::unique_ptr<std::vector<node<T>*>> deferred_readers;
  recorded_block* block = nullptr;  // set when the storage lives in its node's block

  void add_deferred_reader(node<T>* n) {
    const std::lock_guard lock(readers_lock);
    if (!deferred_readers) deferred_readers = std::make_unique<std::vector<node<T>*>>();
    deferred_readers->push_back(n);
  }
  void remove_deferred_reader(node<T>* n) noexcept {
    const std::lock_guard lock(readers_lock);
    if (deferred_readers) std::erase(*deferred_readers, n);
  }
  // Computes every deferred value that reads these values (before an in-place write).
  // Under graph_lock throughout: a reader found in the list stays alive until it has
  // settled, since a node leaves the list (value_settled) only under that lock.
  void settle_deferred_readers() {
    const graph_lock lock;
    for (;;) {
      node<T>* reader = nullptr;
      {
        const std::lock_guard lock(readers_lock);
        if (!deferred_readers || deferred_readers->empty()) return;
        reader = deferred_readers->back();
      }
      reader->settle_value();  // removes itself
    }
  }

  explicit tensor_storage(std::size_t n) : owned(n), data(owned.data()), size(n) {}
  tensor_storage(T* borrowed, std::size_t n) : data(borrowed), size(n) {}
  [[nodiscard]] Eigen::Map<array_t<T>> values() noexcept { return {data, static_cast<Eigen::Index>(size)}; }

 private:
  void destroy() noexcept override { recorded_block::destroy_part(this); }
};

// Throws value_error naming `what` when anomaly mode finds a NaN or infinity in `values`.
template <class T>
void check_finite(const T* values, std::size_t n, const std::string& what) {
  if constexpr (std::is_floating_point_v<T>) {
    const Eigen::Map<const array_t<T>> v(values, static_cast<Eigen::Index>(n));
    if (!v.allFinite())
      throw value_error("fusegrad anomaly: " + what + " produced NaN or infinity (found by DetectAnomalyGuard)");
  }
}

// What a Tensor handle points to.
template <Scalar T>
struct tensor_impl final : ref_counted {
  bool requires_grad = false;
  bool retains_grad = false;
  bool in_block = false;  // lives in grad_fn's block (recorded_block)
  // A fused node will compute the values when they are first read. Set once at recording,
  // cleared once, under graph_lock; threads that read the tensor test it without the lock.
  std::atomic<bool> value_pending{false};
  Extents extents;
  ref<tensor_storage<T>> storage;
  ref<node<T>> grad_fn;  // the node that produced this tensor; null for leaves
  ref<tensor_storage<T>> grad;

  tensor_impl(const Extents& e, ref<tensor_storage<T>> s) : extents(e), storage(std::move(s)) {}
  ~tensor_impl() override {
    if (grad_fn) leave(*grad_fn);
  }

  // The values, computed first if a fused node deferred them. Read for every operand of
  // every recorded op: kept inline (GCC otherwise calls it once the test is atomic).
  [[gnu::always_inline]] const T* data() {
    if (value_pending.load(std::memory_order_acquire)) [[unlikely]]
      compute_pending_value();
    return storage->data;
  }
  void compute_pending_value();
  // Where gradients for this tensor are added; allocated (zeroed) by the first backward.
  T* grad_destination() {
    if (!grad) {
      grad = ref<tensor_storage<T>>::make(extents.size());
      grad->values().setZero();
    }
    return grad->data;
  }
  void accumulate_grad(const T* g) {
    grad_destination();
    grad->values() += Eigen::Map<const array_t<T>>(g, static_cast<Eigen::Index>(extents.size()));
  }

 private:
  // Tells the node that produced this tensor that its output is gone.
  void leave(node<T>& producer) noexcept;
  [[gnu::cold, gnu::noinline]] void leave_after_backward(node<T>& producer) noexcept;
  void destroy() noexcept override {
    if (!in_block) {
      delete this;
      return;
    }
    ref<node<T>> owner = std::move(grad_fn);  // holds the block: released once this is destroyed
    leave(*owner);
    std::destroy_at(this);
  }
};

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

 private:
  void destroy() noexcept override { recorded_block::destroy_part(this); }
};

// Constructs a NodeType (from args) and its output tensor (extents e, values not yet
// written) in one recorded_block; returns the output, whose grad_fn is the node.
template <Scalar T, class NodeType, class... Args>
ref<tensor_impl<T>> record_node(const Extents& e, Args&&... args) {
  constexpr auto align_up = [](std::size_t offset, std::size_t alignment) {
    return (offset + alignment - 1) / alignment * alignment;
  };
  constexpr std::size_t node_at = align_up(sizeof(recorded_block), alignof(NodeType));
  constexpr std::size_t impl_at = align_up(node_at + sizeof(NodeType), alignof(tensor_impl<T>));
  constexpr std::size_t storage_at = align_up(impl_at + sizeof(tensor_impl<T>), alignof(tensor_storage<T>));
  constexpr std::size_t bytes = storage_at + sizeof(tensor_storage<T>);
  static_assert(std::max({alignof(NodeType), alignof(tensor_impl<T>), alignof(tensor_storage<T>)}) <=
                    __STDCPP_DEFAULT_NEW_ALIGNMENT__,
                "record_node: a part needs more alignment than operator new gives");
  auto* memory = static_cast<std::byte*>(object_pool::allocate(bytes));
  auto* block = ::new (memory) recorded_block(bytes);
  tensor_storage<T>* storage = nullptr;
  NodeType* recorded = nullptr;
  static_assert(bytes <= UINT32_MAX);
  try {
    storage = ::new (memory + storage_at) tensor_storage<T>(e.size());
    recorded = ::new (memory + node_at) NodeType(std::forward<Args>(args)...);
  } catch (...) {
    if (storage) std::destroy_at(storage);
    object_pool::deallocate(memory, bytes);
    throw;
  }
  storage->block = block;
  recorded->block = block;
  auto* impl = ::new (memory + impl_at) tensor_impl<T>(e, ref<tensor_storage<T>>::adopt_new(storage));
  impl->in_block = true;
  impl->grad_fn = ref<node<T>>::adopt_new(recorded);
  impl->requires_grad = true;
  recorded->output.store(impl, std::memory_order_relaxed);
  return ref<tensor_impl<T>>::adopt_new(impl);
}

// What backward through a part of the graph that an earlier backward freed throws.
inline graph_error freed_graph_error(const std::string& node_name) {
  return graph_error("fusegrad: part of the graph (" + node_name +
                     ") was freed by an earlier backward; pass retain_graph=true to the first backward "
                     "(loss.backward({.retain_graph = true})) to backpropagate through it again");
}

template <Scalar T>
void tensor_impl<T>::leave(node<T>& producer) noexcept {
  if (producer.output.load(std::memory_order_relaxed) != this) return;
  // A backward running on another thread through `producer` writes into its output only
  // when the output retains its gradient or waits for its value; only then does the output
  // wait for that backward to finish before it goes. Otherwise that backward may still read
  // the two flags, both false, of this tensor as it is destroyed: memory that the node
  // keeps (the recorded_block), of an object whose destruction writes neither.
  if (retains_grad || value_pending.load(std::memory_order_relaxed)) [[unlikely]] {
    leave_after_backward(producer);
    return;
  }
  producer.output.store(nullptr, std::memory_order_relaxed);
}

template <Scalar T>
void tensor_impl<T>::leave_after_backward(node<T>& producer) noexcept {
  const graph_lock lock;
  producer.output.store(nullptr, std::memory_order_relaxed);
  if (value_pending.load(std::memory_order_relaxed)) producer.value_settled();  // nobody can read it any more
}

template <Scalar T>
void tensor_impl<T>::compute_pending_value() {
  const graph_lock lock;
  if (!value_pending.load(std::memory_order_relaxed)) return;  // another thread computed it meanwhile
  if (!grad_fn || grad_fn->released)
    throw graph_error(
        "fusegrad: this tensor's value was deferred to a node that an earlier backward freed; "
        "read the value before backward, or pass retain_graph=true");
  grad_fn->compute_value(storage->data);
  value_pending.store(false, std::memory_order_release);
  grad_fn->value_settled();
}

}  // namespace fusegrad::detail
