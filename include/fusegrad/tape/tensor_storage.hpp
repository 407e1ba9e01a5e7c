// tape/tensor_storage.hpp -- the values of a tensor, shared by its handles and the nodes that read it.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <vector>

#include <Eigen/Core>

#include <fusegrad/concepts.hpp>
#include <fusegrad/detail/buffer.hpp>
#include <fusegrad/tape/graph_lock.hpp>
#include <fusegrad/tape/pool.hpp>
#include <fusegrad/tape/recorded_block.hpp>
#include <fusegrad/tape/ref_counted.hpp>
#include <fusegrad/tape/spin_lock.hpp>

namespace fusegrad::detail {

template <class T>
using array_t = Eigen::Array<T, Eigen::Dynamic, 1>;

template <Scalar T>
struct node;

// The values of a tensor: owned, or a view of caller memory. Shared by a tensor, its
// detach()ed copies and the nodes that read it. `version` counts in-place writes, so a
// node can tell that a value it will read in backward is no longer the one it was given
// (32 bits, as PyTorch's counter).
//
// Few values live right after the storage, in the same allocation (a scalar's take 8
// bytes, not a buffer); more live on the heap. The storage does not know how many values
// it holds: its tensor does (tensor_impl::values()).
// Aligned for T, so that values right after it are (long double asks for 16 bytes).
template <Scalar T>
struct alignas(std::max(alignof(T), alignof(void*))) tensor_storage final : ref_counted<tensor_storage<T>> {
  // Values of at most this many bytes follow the storage in its allocation.
  static constexpr std::size_t max_tail_bytes = 128;
  [[nodiscard]] static constexpr bool fits_tail(std::size_t n) noexcept { return n <= max_tail_bytes / sizeof(T); }

  // Where the values are.
  enum class home : std::uint8_t { tail, heap, borrowed };

  std::uint32_t block_offset = 0;  // from the recorded_block it lives in; 0 when it has its own allocation
  std::uint32_t version = 0;
  spin_lock readers_lock;  // guards deferred_readers
  std::atomic<bool> had_deferred_readers = false;
  home values_home;
  // Whether the values are the caller's memory (from_blob), which the caller may write without the tensor knowing.
  [[nodiscard]] bool borrows() const noexcept { return values_home == home::borrowed; }
  // How many leaves sharing these values (a tensor and its detach()ed copies) require grad: a reshape of them must not
  // be written in place in grad mode then. One byte, in what would be padding: a count that reaches 255 stays there,
  // which only ever refuses more. Atomic: two such leaves may be destroyed on two threads.
  std::atomic<std::uint8_t> grad_leaves = 0;
  T* data;
  std::size_t bytes;  // of the tail or the heap block: what freeing them needs; 0 when borrowed
  // Nodes whose deferred value (a fused sum, mean, linear root or one-element element-wise expression not yet
  // computed) reads these values:
  // an in-place write computes those values first, so they stay the values at recording.
  // Made by the first such node: most storages never have one.
  std::unique_ptr<std::vector<node<T>*>> deferred_readers;

  // Storage owning `n` values (uninitialised), in one pool block with them when few.
  static ref<tensor_storage> owning(std::size_t n) {
    if (!fits_tail(n)) {
      std::size_t heap_bytes = bytes_of_values<T>(n);
      T* values = static_cast<T*>(allocate_heap_values(heap_bytes));
      try {
        return ref<tensor_storage>::adopt_new(new tensor_storage(home::heap, values, heap_bytes));
      } catch (...) {
        free_heap_values(values, heap_bytes);
        throw;
      }
    }
    void* memory = object_pool::allocate(sizeof(tensor_storage) + n * sizeof(T));
    return ref<tensor_storage>::adopt_new(::new (memory) tensor_storage(home::tail, nullptr, n * sizeof(T)));
  }
  // Storage of `n` values that the caller owns.
  static ref<tensor_storage> borrowing(T* values) {
    return ref<tensor_storage>::adopt_new(new tensor_storage(home::borrowed, values, 0));
  }
  // The storage of a recorded node's output, in the node's block at `offset` (record_node):
  // the values follow it when few.
  static tensor_storage* in_block(void* memory, std::uint32_t offset, std::size_t n) {
    tensor_storage* s = nullptr;
    if (fits_tail(n)) {
      s = ::new (memory) tensor_storage(home::tail, nullptr, n * sizeof(T));
    } else {
      std::size_t heap_bytes = bytes_of_values<T>(n);
      T* values = static_cast<T*>(allocate_heap_values(heap_bytes));
      s = ::new (memory) tensor_storage(home::heap, values, heap_bytes);  // cannot throw
    }
    s->block_offset = offset;
    return s;
  }
  // The bytes a recorded block reserves for a storage of `n` values and its tail.
  [[nodiscard]] static constexpr std::size_t bytes_in_block(std::size_t n) noexcept {
    return sizeof(tensor_storage) + (fits_tail(n) ? n * sizeof(T) : 0);
  }

  // A leaf over these values starts or stops requiring grad (grad_leaves).
  // One compare-and-swap each, so that two threads at 254 cannot both add and wrap the count to 0.
  void join_grad_leaf() noexcept { step_grad_leaves(+1); }
  void leave_grad_leaf() noexcept { step_grad_leaves(-1); }
  [[nodiscard]] bool has_grad_leaves() const noexcept { return grad_leaves.load(std::memory_order_relaxed) != 0; }

  void step_grad_leaves(int step) noexcept {
    std::uint8_t count = grad_leaves.load(std::memory_order_relaxed);
    while (count != UINT8_MAX && !grad_leaves.compare_exchange_weak(count, static_cast<std::uint8_t>(count + step),
                                                                    std::memory_order_relaxed)) {
    }
  }

  void add_deferred_reader(node<T>* n) {
    const spin_lock_guard lock(readers_lock);
    if (!deferred_readers) deferred_readers = std::make_unique<std::vector<node<T>*>>();
    deferred_readers->push_back(n);
    had_deferred_readers.store(true, std::memory_order_release);
  }
  // These values are about to be written in place (a tensor's in-place method, a backward adding into a gradient):
  // the deferred values that read them are computed first, so that they stay the values at recording, and the
  // version counts the write, so that nodes that saved them refuse to run backward. The lock-free flag spares the
  // backward the locks for the storages no deferred value ever read. Several writes made as one (an optimiser's step,
  // a backward's gradients) settle every reader first, which may throw, then count every write, which cannot.
  // Written out, not as the two calls below: through them, g++ stops inlining grad_destination into the backward's
  // loop (always_inline on them does not bring it back).
  void prepare_write_in_place() {
    if (had_deferred_readers.load(std::memory_order_acquire)) settle_deferred_readers();
    ++version;
  }
  void settle_readers() {
    if (had_deferred_readers.load(std::memory_order_acquire)) settle_deferred_readers();
  }
  void count_write() noexcept { ++version; }
  void remove_deferred_reader(node<T>* n) noexcept {
    const spin_lock_guard lock(readers_lock);
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
        const spin_lock_guard list_lock(readers_lock);
        if (!deferred_readers || deferred_readers->empty()) return;
        reader = deferred_readers->back();
      }
      reader->settle_value();  // removes itself
    }
  }

  ~tensor_storage() {
    if (values_home == home::heap) free_heap_values(data, bytes);
  }

 private:
  friend class ref_counted<tensor_storage>;
  tensor_storage(home where, T* values, std::size_t n_bytes) noexcept
      : values_home(where), data(where == home::tail ? reinterpret_cast<T*>(this + 1) : values), bytes(n_bytes) {
    static_assert(sizeof(tensor_storage) % alignof(T) == 0, "the values after a storage must be aligned");
  }
  // The last release: destroyed in its block, or freed with its tail.
  void destroy() noexcept {
    if (block_offset != 0) {
      recorded_block::destroy_part(this, block_offset);
      return;
    }
    const std::size_t allocated = sizeof(tensor_storage) + (values_home == home::tail ? bytes : 0);
    std::destroy_at(this);
    object_pool::deallocate(this, allocated);
  }
};

}  // namespace fusegrad::detail
