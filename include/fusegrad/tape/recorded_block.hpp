// tape/recorded_block.hpp -- one pool block for a recorded node and the tensor it outputs.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>

#include <fusegrad/tape/pool.hpp>

namespace fusegrad::detail {

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

}  // namespace fusegrad::detail
