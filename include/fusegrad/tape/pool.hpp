// tape/pool.hpp -- small-object pooling: what keeps recording a node cheap.
#pragma once

#include <array>
#include <cstddef>
#include <new>
#include <utility>

#include <fusegrad/detail/block_cache.hpp>  // report_memory_ran_out
#include <fusegrad/detail/per_thread.hpp>
#include <fusegrad/detail/retention.hpp>

namespace fusegrad::detail {

// A per-thread free list for each size class of small graph objects (tensors, storage,
// and a recorded node with its output, recorded_block.hpp): recording an operation
// takes one block, and the general-purpose allocator would cost more than the operation
// itself on small tensors. Which freed blocks a thread keeps is retention's rule: those that
// balance what it handed out, up to max_kept_bytes. A thread's lists are returned to the
// system when the thread ends.
class object_pool {
 public:
  static constexpr std::size_t granule = 16, classes = 64;  // blocks up to 1 KiB
  static constexpr std::size_t max_kept_bytes = std::size_t(256) << 20;

  [[gnu::always_inline]] static void* allocate(std::size_t bytes) {
    const std::size_t c = size_class(bytes);
    free_lists* lists = c < classes ? per_thread<free_lists>() : nullptr;
    if (!lists) return fresh_block((c + 1) * granule);
    lists->retained.hand_out((c + 1) * granule);
    if (!lists->head[c]) return fresh_block((c + 1) * granule, lists);
    free_block* block = lists->head[c];
    lists->head[c] = block->next;
    lists->retained.unkeep((c + 1) * granule);
    return block;
  }
  [[gnu::always_inline]] static void deallocate(void* p, std::size_t bytes) noexcept {
    const std::size_t c = size_class(bytes);
    free_lists* lists = c < classes ? per_thread<free_lists>() : nullptr;
    if (!lists || !lists->retained.take_back((c + 1) * granule)) {
      ::operator delete(p);
      return;
    }
    lists->head[c] = ::new (p) free_block{lists->head[c]};
  }

 private:
  static std::size_t size_class(std::size_t bytes) noexcept { return (bytes + granule - 1) / granule - 1; }
  // A free block holds the link to the next one: pushing and popping touch no other memory.
  struct free_block {
    free_block* next;
  };
  struct free_lists {
    std::array<free_block*, classes> head{};
    retention retained{.limit = max_kept_bytes};
    ~free_lists() {
      for (free_block* block : head)
        while (block) ::operator delete(std::exchange(block, block->next));
    }
  };
  // A block from the system. Running out is fusegrad's memory_error, as for values, and the block that `lists` counted
  // as handed out is not. Out of line: the rare path.
  [[gnu::noinline]] static void* fresh_block(std::size_t bytes, free_lists* lists = nullptr) {
    try {
      return ::operator new(bytes);
    } catch (const std::bad_alloc&) {
      if (lists) lists->retained.handed_out -= bytes;
      report_memory_ran_out(bytes);
    }
  }
};

}  // namespace fusegrad::detail
