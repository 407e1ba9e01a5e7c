// tape/tensor_storage.hpp -- the values of a tensor, shared by its handles and the nodes that read it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include <Eigen/Core>

#include <fusegrad/concepts.hpp>
#include <fusegrad/detail/buffer.hpp>
#include <fusegrad/tape/graph_lock.hpp>
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

}  // namespace fusegrad::detail
