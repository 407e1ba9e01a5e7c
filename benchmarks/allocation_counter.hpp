// allocation_counter.hpp -- what one gradient costs in heap memory: the program's own malloc family replaces
// glibc's (glibc's "Replacing malloc", forwarding to its __libc_* entry points), and while a measurement is armed
// it counts every allocation, operator new's, Eigen's, the tape pool's and LibTorch's alike. Disarmed it costs one
// relaxed load per call. Include it in one translation unit of a program (each benchmark program is one).
#pragma once

#include <malloc.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <mutex>

#include <benchmark/benchmark.h>

extern "C" {
void* __libc_malloc(std::size_t size);
void* __libc_calloc(std::size_t count, std::size_t size);
void* __libc_realloc(void* block, std::size_t size);
void __libc_free(void* block);
void* __libc_memalign(std::size_t alignment, std::size_t size);
void* __libc_valloc(std::size_t size);
void* __libc_pvalloc(std::size_t size);
}

namespace fusegrad::bench {

/// The heap traffic of one call: bytes and blocks allocated during it, and the most bytes of those
/// blocks that were live at once. A block's bytes are what the allocator reserved for it
/// (malloc_usable_size), at least what was asked.
struct Allocations {
  std::int64_t bytes = 0;
  std::int64_t blocks = 0;
  std::int64_t peak = 0;
};

namespace allocation_counter {

// The blocks allocated while armed and not yet freed. A measured call makes at most a few hundred.
struct born_block {
  void* block;
  std::size_t size;
};
inline constexpr std::size_t capacity = std::size_t{1} << 16;
inline std::array<born_block, capacity> born;
inline std::size_t born_count = 0;
inline bool overflowed = false;
inline Allocations counted;
inline std::int64_t live = 0;
inline std::atomic<bool> armed{false};
inline std::mutex lock;  // LibTorch may allocate on another thread

inline void allocated(void* block) {
  if (!block || !armed.load(std::memory_order_relaxed)) return;
  const std::size_t size = malloc_usable_size(block);
  const std::scoped_lock guard(lock);
  counted.bytes += static_cast<std::int64_t>(size);
  counted.blocks += 1;
  if (born_count == capacity) {
    overflowed = true;
    return;
  }
  born[born_count++] = {block, size};
  live += static_cast<std::int64_t>(size);
  counted.peak = std::max(counted.peak, live);
}

inline void freed(void* block) {
  if (!block || !armed.load(std::memory_order_relaxed)) return;
  const std::scoped_lock guard(lock);
  for (std::size_t k = 0; k < born_count; ++k) {
    if (born[k].block != block) continue;
    live -= static_cast<std::int64_t>(born[k].size);
    born[k] = born[--born_count];
    return;
  }
}

}  // namespace allocation_counter

/// The allocations `call()` makes.
template <class F>
Allocations allocations_of(F&& call) {
  namespace counter = allocation_counter;
  {
    const std::scoped_lock guard(counter::lock);
    counter::counted = {};
    counter::born_count = 0;
    counter::live = 0;
  }
  {
    struct disarm_on_exit {
      ~disarm_on_exit() { counter::armed.store(false); }
    } disarm;
    counter::armed.store(true);
    call();
  }
  const std::scoped_lock guard(counter::lock);
  if (counter::overflowed) {
    std::fprintf(stderr, "allocation_counter: more than %zu blocks live in one call\n", counter::capacity);
    std::abort();
  }
  return counter::counted;
}

/// Records one call's allocations as the benchmark's counters `alloc_bytes`, `alloc_blocks` and
/// `peak_bytes` (in the JSON output, read by report.py): measured on a second call of `step`, so that
/// caches a first call fills (the tape's block pool, LibTorch's set-up) count as they do in a loop.
/// The benchmarks pass a copy of their loop's body and keep the timed loop as it was: moved into a
/// lambda that both call, B2's hand-written reduction compiled to gathers with g++ 12, 5-9 times slower.
template <class F>
void record_allocations(benchmark::State& state, F&& step) {
  step();
  const Allocations a = allocations_of(step);
  state.counters["alloc_bytes"] = static_cast<double>(a.bytes);
  state.counters["alloc_blocks"] = static_cast<double>(a.blocks);
  state.counters["peak_bytes"] = static_cast<double>(a.peak);
}

}  // namespace fusegrad::bench

// The replacements. Each forwards to glibc and tells the counter; glibc declares them noexcept in C++.
extern "C" {
void* malloc(std::size_t size) noexcept {
  void* block = __libc_malloc(size);
  fusegrad::bench::allocation_counter::allocated(block);
  return block;
}
void* calloc(std::size_t count, std::size_t size) noexcept {
  void* block = __libc_calloc(count, size);
  fusegrad::bench::allocation_counter::allocated(block);
  return block;
}
void* realloc(void* old, std::size_t size) noexcept {
  if (old && size == 0) {  // frees `old`
    free(old);
    return nullptr;
  }
  void* block = __libc_realloc(old, size);
  if (block) {  // else it failed and `old` is as it was
    fusegrad::bench::allocation_counter::freed(old);
    fusegrad::bench::allocation_counter::allocated(block);
  }
  return block;
}
void free(void* block) noexcept {
  fusegrad::bench::allocation_counter::freed(block);
  __libc_free(block);
}
void* memalign(std::size_t alignment, std::size_t size) noexcept {
  void* block = __libc_memalign(alignment, size);
  fusegrad::bench::allocation_counter::allocated(block);
  return block;
}
void* aligned_alloc(std::size_t alignment, std::size_t size) noexcept { return memalign(alignment, size); }
int posix_memalign(void** out, std::size_t alignment, std::size_t size) noexcept {
  if (alignment % sizeof(void*) != 0 || (alignment & (alignment - 1)) != 0) return EINVAL;  // as glibc
  void* block = memalign(alignment, size);
  if (!block) return ENOMEM;
  *out = block;
  return 0;
}
void* valloc(std::size_t size) noexcept {
  void* block = __libc_valloc(size);
  fusegrad::bench::allocation_counter::allocated(block);
  return block;
}
void* pvalloc(std::size_t size) noexcept {
  void* block = __libc_pvalloc(size);
  fusegrad::bench::allocation_counter::allocated(block);
  return block;
}
}
