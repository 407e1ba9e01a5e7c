// detail/block_cache.hpp -- large blocks recycled per thread, so that memory fresh from the system is rare.
#pragma once

#include <cstddef>
#include <new>
#include <vector>

#include <fusegrad/detail/per_thread.hpp>
#include <fusegrad/detail/retention.hpp>

namespace fusegrad::detail {

// Heap blocks of values of 1 KiB and up start on a cache line, so that vector loads at whole-
// vector offsets from the start never straddle two lines (malloc's 16-byte alignment splits
// every other 32-byte load). Smaller blocks take malloc's fast path: aligned allocation skips it.
inline constexpr std::size_t aligned_from_bytes = 1024;
inline constexpr std::align_val_t values_alignment{64};
inline void* allocate_values(std::size_t bytes) {
  return bytes >= aligned_from_bytes ? ::operator new(bytes, values_alignment) : ::operator new(bytes);
}
inline void free_values(void* p, std::size_t bytes) noexcept {
  if (bytes >= aligned_from_bytes)
    ::operator delete(p, values_alignment);
  else
    ::operator delete(p);
}

// Large blocks (the values and gradients of big tensors), recycled per thread. Memory
// fresh from the system costs a page fault per 4 KiB on first touch; for a taped
// operation on a million elements that costs more than the operation itself, and an
// iteration of a training loop asks again for the blocks the previous one freed. A freed
// block waits for the next request of (nearly) its size; a thread keeps at most
// its limit (256 MiB unless set_limit says otherwise) and gives back the rest at once, and
// keeps only blocks that balance what it handed out (retention's rule).
class block_cache {
 public:
  static constexpr std::size_t min_bytes = std::size_t(64) << 10;  // below this, malloc recycles well

  // A block of at least `bytes` bytes; `bytes` is updated to the block's real size.
  static void* allocate(std::size_t& bytes) {
    blocks_of_thread* cache = per_thread<blocks_of_thread>();
    if (!cache) return allocate_values(bytes);
    auto& c = *cache;
    // Best fit among blocks at most a quarter larger: a cache that hands out far larger
    // blocks would hold memory nobody uses.
    std::size_t best = c.blocks.size();
    for (std::size_t k = 0; k < c.blocks.size(); ++k) {
      const std::size_t size = c.blocks[k].bytes;
      if (size >= bytes && size <= bytes + bytes / 4 && (best == c.blocks.size() || size < c.blocks[best].bytes))
        best = k;
    }
    if (best == c.blocks.size()) {
      c.retained.hand_out(bytes);
      return allocate_values(bytes);
    }
    const block found = c.blocks[best];
    c.blocks[best] = c.blocks.back();
    c.blocks.pop_back();
    c.retained.unkeep(found.bytes);
    c.retained.hand_out(found.bytes);
    bytes = found.bytes;
    return found.p;
  }
  static void deallocate(void* p, std::size_t bytes) noexcept {
    blocks_of_thread* cache = per_thread<blocks_of_thread>();
    if (!cache) {
      free_values(p, bytes);
      return;
    }
    auto& c = *cache;
    if (!c.retained.take_back(bytes)) {
      free_values(p, bytes);
      return;
    }
    try {
      c.blocks.push_back({p, bytes});
    } catch (...) {  // no room to remember it: give it back
      c.retained.unkeep(bytes);
      free_values(p, bytes);
    }
  }
  // Gives every cached block of this thread back to the system.
  static void release() noexcept {
    if (blocks_of_thread* cache = per_thread<blocks_of_thread>()) cache->clear();
  }
  // Keeps at most `bytes` from now on, giving back at once what is over.
  static void set_limit(std::size_t bytes) noexcept {
    if (blocks_of_thread* cache = per_thread<blocks_of_thread>()) {
      cache->retained.limit = bytes;
      if (cache->retained.kept > bytes) cache->clear();
    }
  }
  static std::size_t cached_bytes() noexcept {
    const blocks_of_thread* cache = per_thread<blocks_of_thread>();
    return cache ? cache->retained.kept : 0;
  }

 private:
  struct block {
    void* p;
    std::size_t bytes;
  };
  struct blocks_of_thread {
    std::vector<block> blocks;
    retention retained{.limit = std::size_t(256) << 20};
    void clear() noexcept {
      for (const block& b : blocks) {
        retained.unkeep(b.bytes);
        free_values(b.p, b.bytes);
      }
      blocks.clear();
    }
    ~blocks_of_thread() { clear(); }
  };
};

}  // namespace fusegrad::detail

namespace fusegrad {

/// Gives back to the system the large freed tensor blocks that the calling thread keeps
/// for reuse (see set_cached_memory_limit).
inline void release_cached_memory() noexcept { detail::block_cache::release(); }

/// How many bytes of freed large tensor blocks the calling thread keeps at the moment.
[[nodiscard]] inline std::size_t cached_memory_bytes() noexcept { return detail::block_cache::cached_bytes(); }

/// How many bytes of freed large tensor blocks (64 KiB and up) the calling thread keeps
/// for the next tensors of the same size; 256 MiB unless set. 0 turns the cache off.
inline void set_cached_memory_limit(std::size_t bytes) noexcept { detail::block_cache::set_limit(bytes); }

}  // namespace fusegrad
