// tape/sleeping_lock.hpp -- sleeping_lock: a lock whose waiters sleep, for critical sections that may run long.
#pragma once

#include <atomic>

#include <fusegrad/tape/single_threaded.hpp>

namespace fusegrad::detail {

// A lock that may be held for a whole backward, so a thread waiting for it sleeps (std::atomic's wait: a futex on
// Linux) rather than spin. Uncontended, taking it is one compare-exchange and releasing it one exchange, inline,
// where std::mutex calls the C library's pthread functions; recording and differentiating one small tape node takes
// the lock three times; while the process runs one thread, it takes and releases it with plain stores
// (single_threaded()), which a thread started while it is held sees. Constant-initialised and trivially destructible,
// so a static one outlives every other static object.
class sleeping_lock {
 public:
  constexpr sleeping_lock() noexcept = default;
  sleeping_lock(const sleeping_lock&) = delete;
  sleeping_lock& operator=(const sleeping_lock&) = delete;

  void lock() noexcept {
    if (single_threaded()) {
      state_.store(locked, std::memory_order_relaxed);
      return;
    }
    int seen = unlocked;
    if (state_.compare_exchange_strong(seen, locked, std::memory_order_acquire, std::memory_order_relaxed)) return;
    // Taken: say that a thread sleeps on it, then sleep until a release wakes this one and it is free.
    if (seen != locked_with_sleepers) seen = state_.exchange(locked_with_sleepers, std::memory_order_acquire);
    while (seen != unlocked) {
      state_.wait(locked_with_sleepers, std::memory_order_relaxed);
      seen = state_.exchange(locked_with_sleepers, std::memory_order_acquire);
    }
  }
  void unlock() noexcept {
    if (single_threaded()) {  // no thread can be waiting
      state_.store(unlocked, std::memory_order_relaxed);
      return;
    }
    if (state_.exchange(unlocked, std::memory_order_release) == locked_with_sleepers) state_.notify_one();
  }

 private:
  static constexpr int unlocked = 0, locked = 1, locked_with_sleepers = 2;
  std::atomic<int> state_{unlocked};
};

}  // namespace fusegrad::detail
