// tape/pool.hpp -- small-object pooling: what keeps recording a node cheap.
#pragma once

#include <array>
#include <cstddef>
#include <memory>
#include <new>
#include <type_traits>
#include <vector>

#include <fusegrad/detail/buffer.hpp>  // small_buffer, which graph objects hold
#include <fusegrad/detail/per_thread.hpp>

namespace fusegrad::detail {

// A per-thread free list for each size class of small graph objects (tensors, storage,
// nodes). Recording one operation creates three of them; the general-purpose allocator
// would cost more than the operation itself on small tensors. Freed blocks stay in the
// freeing thread's list (memory may migrate between threads; it is never lost) and are
// returned to the system when the thread ends.
class object_pool {
 public:
  static constexpr std::size_t granule = 16, classes = 32;  // blocks up to 512 bytes

  static void* allocate(std::size_t bytes) {
    const std::size_t c = size_class(bytes);
    free_lists* lists = per_thread<free_lists>();
    if (c >= classes || !lists) return ::operator new((c + 1) * granule);
    auto& list = lists->free[c];
    if (list.empty()) return ::operator new((c + 1) * granule);
    void* p = list.back();
    list.pop_back();
    return p;
  }
  static void deallocate(void* p, std::size_t bytes) noexcept {
    const std::size_t c = size_class(bytes);
    free_lists* lists = per_thread<free_lists>();
    if (c >= classes || !lists) {
      ::operator delete(p);
      return;
    }
    try {
      lists->free[c].push_back(p);
    } catch (...) {  // no room to remember it: give it back
      ::operator delete(p);
    }
  }

 private:
  static std::size_t size_class(std::size_t bytes) noexcept { return (bytes + granule - 1) / granule - 1; }
  struct free_lists {
    std::array<std::vector<void*>, classes> free;
    ~free_lists() {
      for (auto& list : free)
        for (void* p : list) ::operator delete(p);
    }
  };
};

}  // namespace fusegrad::detail
