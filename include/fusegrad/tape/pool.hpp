// tape/pool.hpp -- small-object pooling and small buffers: what keeps a recorded node cheap.
#pragma once

#include <array>
#include <cstddef>
#include <memory>
#include <new>
#include <type_traits>
#include <vector>

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
    if (c >= classes) return ::operator new(bytes);
    auto& list = lists().free[c];
    if (list.empty()) return ::operator new(c* granule + granule);
    void* p = list.back();
    list.pop_back();
    return p;
  }
  static void deallocate(void* p, std::size_t bytes) noexcept {
    const std::size_t c = size_class(bytes);
    if (c >= classes) {
      ::operator delete(p);
      return;
    }
    try {
      lists().free[c].push_back(p);
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
  static free_lists& lists() {
    thread_local free_lists instance;
    return instance;
  }
};

// Large blocks (the values and gradients of big tensors), recycled per thread. Memory
// fresh from the system costs a page fault per 4 KiB on first touch; for a taped
// operation on a million elements that costs more than the operation itself, and an
// iteration of a training loop asks again for the blocks the previous one freed. A freed
// block waits for the next request of (nearly) its size; a thread keeps at most
// `limit()` bytes and gives back the rest at once.
class block_cache {
 public:
  static constexpr std::size_t min_bytes = std::size_t(64) << 10;  // below this, malloc recycles well

  // A block of at least `bytes` bytes; `bytes` is updated to the block's real size.
  static void* allocate(std::size_t& bytes) {
    auto& c = cache();
    // Best fit among blocks at most a quarter larger: a cache that hands out far larger
    // blocks would hold memory nobody uses.
    std::size_t best = c.blocks.size();
    for (std::size_t k = 0; k < c.blocks.size(); ++k) {
      const std::size_t size = c.blocks[k].bytes;
      if (size >= bytes && size <= bytes + bytes / 4 && (best == c.blocks.size() || size < c.blocks[best].bytes))
        best = k;
    }
    if (best == c.blocks.size()) return ::operator new(bytes);
    const block found = c.blocks[best];
    c.blocks[best] = c.blocks.back();
    c.blocks.pop_back();
    c.cached -= found.bytes;
    bytes = found.bytes;
    return found.p;
  }
  static void deallocate(void* p, std::size_t bytes) noexcept {
    auto& c = cache();
    if (c.cached + bytes > c.limit) {
      ::operator delete(p);
      return;
    }
    try {
      c.blocks.push_back({p, bytes});
      c.cached += bytes;
    } catch (...) {  // no room to remember it: give it back
      ::operator delete(p);
    }
  }
  // Gives every cached block of this thread back to the system.
  static void release() noexcept { cache().clear(); }
  static std::size_t& limit() noexcept { return cache().limit; }
  static std::size_t cached_bytes() noexcept { return cache().cached; }

 private:
  struct block {
    void* p;
    std::size_t bytes;
  };
  struct blocks_of_thread {
    std::vector<block> blocks;
    std::size_t cached = 0;
    std::size_t limit = std::size_t(256) << 20;
    void clear() noexcept {
      for (const block& b : blocks) ::operator delete(b.p);
      blocks.clear();
      cached = 0;
    }
    ~blocks_of_thread() { clear(); }
  };
  static blocks_of_thread& cache() {
    thread_local blocks_of_thread instance;
    return instance;
  }
};

// Values of a tensor or a gradient: up to `inline_capacity` elements in place (scalars,
// small vectors: no allocation), more on the heap, large blocks through block_cache.
// Elements are left uninitialised: every user writes before it reads.
template <class T>
class small_buffer {
  static_assert(std::is_trivially_destructible_v<T> && std::is_trivially_copyable_v<T>,
                "small_buffer holds arithmetic scalars (implicit-lifetime types) only");

 public:
  static constexpr std::size_t inline_capacity = 4;

  small_buffer() = default;
  explicit small_buffer(std::size_t n) { resize(n); }
  small_buffer(const small_buffer&) = delete;
  small_buffer& operator=(const small_buffer&) = delete;
  ~small_buffer() { free_heap(); }

  void resize(std::size_t n) {
    if (n <= inline_capacity) {
      free_heap();
      data_ = inline_.data();
    } else if (n * sizeof(T) > capacity_bytes_ || n * sizeof(T) < capacity_bytes_ / 2) {
      free_heap();
      std::size_t bytes = n * sizeof(T);
      void* p = bytes >= block_cache::min_bytes ? block_cache::allocate(bytes) : ::operator new(bytes);
      data_ = static_cast<T*>(p);
      capacity_bytes_ = bytes;
    }
    size_ = n;
  }
  void clear() noexcept {
    free_heap();
    data_ = inline_.data();
    size_ = 0;
  }
  [[nodiscard]] T* data() noexcept { return data_; }
  [[nodiscard]] const T* data() const noexcept { return data_; }
  [[nodiscard]] std::size_t size() const noexcept { return size_; }

 private:
  void free_heap() noexcept {
    if (capacity_bytes_ == 0) return;
    if (capacity_bytes_ >= block_cache::min_bytes)
      block_cache::deallocate(data_, capacity_bytes_);
    else
      ::operator delete(data_);
    capacity_bytes_ = 0;
  }

  std::array<T, inline_capacity> inline_{};
  T* data_ = inline_.data();
  std::size_t size_ = 0;
  std::size_t capacity_bytes_ = 0;  // of the heap block; 0 when the values are inline
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
inline void set_cached_memory_limit(std::size_t bytes) noexcept {
  detail::block_cache::limit() = bytes;
  if (detail::block_cache::cached_bytes() > bytes) detail::block_cache::release();
}

}  // namespace fusegrad
