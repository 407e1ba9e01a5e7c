// detail/retention.hpp -- which freed blocks a thread's cache keeps: those that balance what it handed out, up to a
// limit.
#pragma once

#include <cstddef>

namespace fusegrad::detail {

// The bookkeeping of a per-thread cache of freed blocks (object_pool, block_cache). A thread
// keeps a freed block only while it has handed out more than it has taken back. A thread that
// frees what others allocated (a consumer of graphs that a producer thread records) would
// otherwise collect blocks that its own work never asks for again, while the producer kept
// asking the system for new ones: memory would grow with every graph. Past its balance, or
// past `limit` bytes kept, a thread gives blocks back to the system allocator, whose own free
// lists then serve the producer. The limit also bounds a thread that produced much and later
// frees others' graphs, which its balance alone would let hoard that much.
struct retention {
  std::size_t handed_out = 0;  // bytes handed out on this thread and not yet taken back on it
  std::size_t kept = 0;        // bytes the cache holds
  std::size_t limit;

  void hand_out(std::size_t bytes) noexcept { handed_out += bytes; }
  // A kept block leaves the cache (handed out again, or given back to the system).
  void unkeep(std::size_t bytes) noexcept { kept -= bytes; }
  // A block of `bytes` comes back on this thread: true when the cache is to keep it, which
  // it then counts as kept; false when it goes back to the system.
  [[nodiscard]] bool take_back(std::size_t bytes) noexcept {
    const bool own = handed_out >= bytes;  // else a block another thread handed out
    if (own) handed_out -= bytes;
    if (!own || kept + bytes > limit) return false;
    kept += bytes;
    return true;
  }
};

}  // namespace fusegrad::detail
