// detail/block_cache.hpp -- blocks of values recycled per thread, so that memory fresh from the system is rare.
#pragma once

#include <algorithm>
#include <cstddef>
#include <limits>
#include <map>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include <fusegrad/detail/per_thread.hpp>
#include <fusegrad/detail/retention.hpp>
#include <fusegrad/error.hpp>

namespace fusegrad::detail {

// Heap blocks of values of 1 KiB and up start on a cache line, so that vector loads at whole-
// vector offsets from the start never straddle two lines (malloc's 16-byte alignment splits
// every other 32-byte load). Smaller blocks take malloc's fast path: aligned allocation skips it.
inline constexpr std::size_t aligned_from_bytes = 1024;
inline constexpr std::align_val_t values_alignment{64};
// Memory running out is reported as fusegrad's own error, with the size asked for (out of line: never on a fast path):
// for a tensor's values and state, a recorded node, a gradient or a sweep's buffer.
[[noreturn, gnu::cold, gnu::noinline]] inline void report_memory_ran_out(std::size_t bytes) {
  throw memory_error("fusegrad: cannot allocate " + std::to_string(bytes) + " bytes (" + std::to_string(bytes >> 20) +
                     " MiB): the memory ran out. Use smaller tensors, or free others first (a recorded graph holds "
                     "what its nodes saved until its backward)");
}
[[noreturn, gnu::cold, gnu::noinline]] inline void report_count_too_large(std::size_t n, std::size_t value_bytes) {
  throw memory_error("fusegrad: cannot allocate " + std::to_string(n) + " values of " + std::to_string(value_bytes) +
                     " bytes: more bytes than memory can address. Use smaller tensors");
}
// The bytes of n values of T. A count whose bytes no address space holds runs out of memory as any too large request
// does, before its product can wrap around (half the range: block_cache adds a quarter to a request).
template <class T>
[[nodiscard]] std::size_t bytes_of_values(std::size_t n) {
  if (n > std::numeric_limits<std::size_t>::max() / 2 / sizeof(T)) [[unlikely]]
    report_count_too_large(n, sizeof(T));
  return n * sizeof(T);
}
inline void* allocate_values(std::size_t bytes) {
  try {
    return bytes >= aligned_from_bytes ? ::operator new(bytes, values_alignment) : ::operator new(bytes);
  } catch (const std::bad_alloc&) {
    report_memory_ran_out(bytes);
  }
}
inline void free_values(void* p, std::size_t bytes) noexcept {
  if (bytes >= aligned_from_bytes)
    ::operator delete(p, values_alignment);
  else
    ::operator delete(p);
}

// Blocks of values of 1 KiB and up (the values and gradients of tensors, a sweep's buffers),
// recycled per thread. Memory fresh from the system costs a page fault per 4 KiB on first
// touch, and glibc's malloc gives memory back to the system whenever more than 128 KiB (by
// default) lies free at the top of its heap: a loop whose iterations free a few such blocks
// and ask for them again would fault on every page of them in every iteration, which costs
// more than the operations on them. A freed block waits for the next request of (nearly) its
// size; a thread keeps at most its limit (256 MiB unless set_limit says otherwise) and gives
// back the rest at once, and keeps only blocks that balance what it handed out (retention's
// rule).
class block_cache {
 public:
  // Smaller blocks stay with malloc, whose per-thread cache recycles them without a lock.
  static constexpr std::size_t min_bytes = aligned_from_bytes;

  // A block of at least `bytes` bytes; `bytes` is updated to the block's real size.
  static void* allocate(std::size_t& bytes) {
    blocks_of_thread* cache = per_thread<blocks_of_thread>();
    if (!cache) return allocate_values(bytes);
    auto& c = *cache;
    // Best fit among blocks at most a quarter larger: a cache that hands out far larger
    // blocks would hold memory nobody uses. Of equal sizes the last freed comes first (its
    // lines may still be in cache).
    const auto fit = c.blocks.lower_bound(bytes);
    if (fit == c.blocks.end() || fit->first > bytes + bytes / 4) {
      void* const fresh = allocate_values(bytes);
      c.retained.hand_out(bytes);  // counted once it is there: a failed allocation hands nothing out
      return fresh;
    }
    auto entry = c.blocks.extract(fit);
    const std::size_t found_bytes = entry.key();
    void* const found = entry.mapped();
    c.keep_entry(std::move(entry));
    c.retained.unkeep(found_bytes);
    c.retained.hand_out(found_bytes);
    bytes = found_bytes;
    return found;
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
      // First among the blocks of its size, so that the next request of that size takes it.
      c.file(p, bytes);
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
  struct blocks_of_thread {
    using index = std::multimap<std::size_t, void*>;
    // By size: a thread may keep thousands of blocks, each found and filed in logarithmic time.
    index blocks;
    // The index's entries of blocks handed out, kept to file blocks that come back: a loop that takes blocks and
    // gives them back then allocates nothing, not even the index's nodes.
    std::vector<index::node_type> spare_entries;
    retention retained{.limit = std::size_t(256) << 20};

    void keep_entry(index::node_type entry) noexcept {
      try {
        spare_entries.push_back(std::move(entry));
      } catch (...) {  // no room to keep it: the entry is freed
      }
    }
    void file(void* p, std::size_t bytes) {
      // Room for every entry the index has made, reserved here, where a new one is made: keep_entry then never
      // allocates, and a loop that takes its blocks again allocates nothing.
      const std::size_t entries = blocks.size() + spare_entries.size() + 1;
      if (spare_entries.capacity() < entries) spare_entries.reserve(std::max<std::size_t>(16, 2 * entries));
      const auto hint = blocks.lower_bound(bytes);
      if (spare_entries.empty()) {
        blocks.emplace_hint(hint, bytes, p);
        return;
      }
      index::node_type entry = std::move(spare_entries.back());
      spare_entries.pop_back();
      entry.key() = bytes;
      entry.mapped() = p;
      blocks.insert(hint, std::move(entry));
    }
    void clear() noexcept {
      for (const auto& [bytes, p] : blocks) {
        retained.unkeep(bytes);
        free_values(p, bytes);
      }
      blocks.clear();
      spare_entries.clear();
    }
    ~blocks_of_thread() { clear(); }
  };
};

}  // namespace fusegrad::detail

namespace fusegrad {

/// Gives back to the system the freed tensor blocks that the calling thread keeps for reuse
/// (see set_cached_memory_limit).
inline void release_cached_memory() noexcept { detail::block_cache::release(); }

/// How many bytes of freed tensor blocks the calling thread keeps at the moment.
[[nodiscard]] inline std::size_t cached_memory_bytes() noexcept { return detail::block_cache::cached_bytes(); }

/// How many bytes of freed tensor blocks (1 KiB and up) the calling thread keeps for the
/// next tensors of the same size; 256 MiB unless set. 0 turns the cache off.
inline void set_cached_memory_limit(std::size_t bytes) noexcept { detail::block_cache::set_limit(bytes); }

}  // namespace fusegrad
