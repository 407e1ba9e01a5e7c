// tape/recorded_block.hpp -- one pool block for a recorded node and the tensor it outputs.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>

#include <fusegrad/tape/pool.hpp>

namespace fusegrad::detail {

// One pool block for a recorded node and the tensor it outputs (the tensor's state, the
// storage of its values and, when few, the values): recording an operation takes one
// block, not four. The parts die at different times -- the tensor state first (it holds
// the node), then the node when its consumers let go of it, while a detach()ed tensor may
// keep the values longer -- so the block counts its two independent parts, the node and
// the storage, and the last frees it. A part finds the block from its own address and the
// offset it keeps (2 bytes in a node, 4 in a storage, where a pointer would take 8).
struct recorded_block {
  explicit recorded_block(std::size_t n) noexcept : bytes(static_cast<std::uint32_t>(n)) {}
  std::atomic<std::uint32_t> parts{2};
  std::uint32_t bytes;  // at most object_pool's largest class, or a node type's size

  // The block a part at `offset` bytes into it lives in.
  template <class Part>
  static recorded_block* of(Part* part, std::size_t offset) noexcept {
    return reinterpret_cast<recorded_block*>(reinterpret_cast<std::byte*>(part) - offset);
  }
  // What the last release of a part in a block does: destroy it in place (virtually for a
  // node: the most derived destructor) and free the block if it was the last part.
  template <class Part>
  static void destroy_part(Part* part, std::size_t offset) noexcept {
    recorded_block* b = of(part, offset);
    std::destroy_at(part);
    if (b->parts.fetch_sub(1, std::memory_order_acq_rel) == 1) object_pool::deallocate(b, b->bytes);
  }
};

}  // namespace fusegrad::detail
