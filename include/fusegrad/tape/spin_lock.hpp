// tape/spin_lock.hpp -- spin_lock: a one-flag lock for short critical sections, and the guard that holds it.
#pragma once

#include <atomic>

#if __has_include(<sched.h>)
#include <sched.h>
#else
#include <thread>
#endif

namespace fusegrad::detail {

// A lock for short critical sections on objects that threads may share (a tensor's storage
// read by graphs that several threads record): one atomic flag, no system call.
class spin_lock {
 public:
  void lock() noexcept {
    while (flag_.test_and_set(std::memory_order_acquire)) yield();
  }
  void unlock() noexcept { flag_.clear(std::memory_order_release); }

 private:
  // What std::this_thread::yield does, without <thread>: that header (stop tokens,
  // semaphores) would be parsed by every translation unit that includes the tape.
  static void yield() noexcept {
#if __has_include(<sched.h>)
    sched_yield();
#else
    std::this_thread::yield();
#endif
  }
  std::atomic_flag flag_;  // clear (C++20)
};

// Holds a spin_lock for its scope: std::lock_guard's job, without <mutex>, which every translation unit that
// includes the tape would parse.
class [[nodiscard]] spin_lock_guard {
 public:
  explicit spin_lock_guard(spin_lock& lock) noexcept : lock_(lock) { lock_.lock(); }
  ~spin_lock_guard() { lock_.unlock(); }
  spin_lock_guard(const spin_lock_guard&) = delete;
  spin_lock_guard& operator=(const spin_lock_guard&) = delete;

 private:
  spin_lock& lock_;
};

}  // namespace fusegrad::detail
