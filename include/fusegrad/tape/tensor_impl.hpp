// tape/tensor_impl.hpp -- what a Tensor handle points to: extents, values, gradient, producing node.
#pragma once

#include <atomic>
#include <cstddef>
#include <memory>
#include <utility>

#include <Eigen/Core>

#include <fusegrad/concepts.hpp>
#include <fusegrad/error.hpp>
#include <fusegrad/shape/extents.hpp>
#include <fusegrad/tape/graph_lock.hpp>
#include <fusegrad/tape/node.hpp>
#include <fusegrad/tape/recorded_block.hpp>
#include <fusegrad/tape/ref_counted.hpp>
#include <fusegrad/tape/stored_extents.hpp>
#include <fusegrad/tape/tensor_names.hpp>
#include <fusegrad/tape/tensor_storage.hpp>

namespace fusegrad::detail {

// What a Tensor handle points to. 48 bytes for a scalar or a vector: a taped graph holds
// one per recorded op.
template <Scalar T>
struct tensor_impl final : ref_counted<tensor_impl<T>> {
  bool requires_grad = false;
  bool retains_grad = false;
  bool in_block = false;  // lives in grad_fn's block (recorded_block)
  // A reshape of another tensor, sharing its values: written in place in grad mode while a leaf
  // that shares them requires grad (tensor_storage::grad_leaves), it would change that leaf
  // behind the graph's back (check_in_place refuses).
  bool is_view = false;
  // A view made while grad mode was off of a tensor computed from tensors that require grad:
  // written in place in grad mode, it would change values backward reads (check_in_place refuses).
  bool views_grad_result = false;
  // Counted in its storage's grad_leaves: a leaf that requires grad. Its own flag, since a recorded output, whose
  // grad_fn its block's destroy() clears before this destructor runs, would otherwise look like such a leaf.
  bool counted_grad_leaf = false;
  // Has a name in tensor_names (t.name("w")); read by pictures on any thread, hence atomic.
  std::atomic<bool> named{false};
  // A fused node will compute the values when they are first read. Set once at recording,
  // cleared once, under graph_lock; threads that read the tensor test it without the lock.
  std::atomic<bool> value_pending{false};
  stored_extents extents;
  ref<tensor_storage<T>> storage;
  ref<node<T>> grad_fn;  // the node that produced this tensor; null for leaves
  ref<tensor_storage<T>> grad;

  tensor_impl(const Extents& e, ref<tensor_storage<T>> s) : extents(e), storage(std::move(s)) {}
  tensor_impl(stored_extents e, ref<tensor_storage<T>> s) noexcept : extents(std::move(e)), storage(std::move(s)) {}
  ~tensor_impl() {
    if (grad_fn) leave(*grad_fn);
    if (counted_grad_leaf && storage) storage->leave_grad_leaf();
    if (named.load(std::memory_order_relaxed)) [[unlikely]]
      tensor_names::forget(this);
  }

  // The values as an Eigen array (valid once data() has settled a deferred value).
  [[nodiscard]] Eigen::Map<array_t<T>> values() noexcept {
    return {storage->data, static_cast<Eigen::Index>(extents.size())};
  }

  // The values, computed first if a fused node deferred them. Read for every operand of
  // every recorded op: kept inline (GCC otherwise calls it once the test is atomic).
  [[gnu::always_inline]] const T* data() {
    if (value_pending.load(std::memory_order_acquire)) [[unlikely]]
      compute_pending_value();
    return storage->data;
  }
  void compute_pending_value();
  // Where gradients for this tensor are added; allocated (zeroed) by the first backward, and written in place after,
  // as PyTorch accumulates (tensor_storage::prepare_write_in_place: grad() may have handed it out).
  T* grad_destination() {
    if (!grad) {
      grad = tensor_storage<T>::owning(extents.size());
      grad_values().setZero();
    } else {
      grad->prepare_write_in_place();
    }
    return grad->data;
  }
  // As grad_destination(), without the zeros: `unfilled` is set when the gradient is made by this call and holds
  // nothing yet, and the caller then writes all of it.
  T* grad_destination_unfilled(bool& unfilled) {
    if (!grad) {
      grad = tensor_storage<T>::owning(extents.size());
      unfilled = true;
    } else {
      grad->prepare_write_in_place();
    }
    return grad->data;
  }
  // A backward's commit, in three steps so that nothing changes unless all of it does: settle_grad_readers() (what
  // reads an existing gradient is computed; may throw), fresh_grad() (the storage of a first gradient; may throw), then
  // commit_grad(), which cannot throw. A gradient made between the steps (by the pass of a graph that casts lead into
  // and back) is added to, and the fresh storage dropped.
  void settle_grad_readers() {
    if (grad) grad->settle_readers();
  }
  [[nodiscard]] ref<tensor_storage<T>> fresh_grad() const {
    return grad ? ref<tensor_storage<T>>() : tensor_storage<T>::owning(extents.size());
  }
  void commit_grad(const T* g, ref<tensor_storage<T>> fresh) noexcept {
    const Eigen::Map<const array_t<T>> added(g, static_cast<Eigen::Index>(extents.size()));
    if (fresh && !grad) {
      grad = std::move(fresh);
      grad_values() = added;
    } else {
      grad->count_write();
      grad_values() += added;
    }
  }
  void accumulate_grad(const T* g) {
    grad_destination();
    grad_values() += Eigen::Map<const array_t<T>>(g, static_cast<Eigen::Index>(extents.size()));
  }

 private:
  friend class ref_counted<tensor_impl>;
  [[nodiscard]] Eigen::Map<array_t<T>> grad_values() noexcept {
    return {grad->data, static_cast<Eigen::Index>(extents.size())};
  }

  // Tells the node that produced this tensor that its output is gone.
  void leave(node<T>& producer) noexcept;
  [[gnu::cold, gnu::noinline]] void leave_after_backward(node<T>& producer) noexcept;
  // The last release.
  void destroy() noexcept {
    if (!in_block) {
      delete this;
      return;
    }
    ref<node<T>> owner = std::move(grad_fn);  // holds the block: released once this is destroyed
    leave(*owner);
    std::destroy_at(this);
  }
};

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
    throw graph_error(grad_fn && grad_fn->released == released_after_failure
                          ? "fusegrad: this tensor's value was deferred to a node whose backward failed, and it could "
                            "not be computed then either; record the graph again"
                          : "fusegrad: this tensor's value was deferred to a node that an earlier backward freed; "
                            "read the value before backward, or pass retain_graph=true");
  grad_fn->compute_value(storage->data);
  value_pending.store(false, std::memory_order_release);
  grad_fn->value_settled();
}

}  // namespace fusegrad::detail
