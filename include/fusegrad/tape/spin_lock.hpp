// tape/spin_lock.hpp -- spin_lock: a one-flag lock for short critical sections.
#pragma once

#include <atomic>
#include <thread>

namespace fusegrad::detail {

// A lock for short critical sections on objects that threads may share (a tensor's storage
// read by graphs that several threads record): one atomic flag, no system call.
class spin_lock {
 public:
  void lock() noexcept {
    while (flag_.test_and_set(std::memory_order_acquire)) std::this_thread::yield();
  }
  void unlock() noexcept { flag_.clear(std::memory_order_release); }

 private:
  std::atomic_flag flag_;  // clear (C++20)
};

}  // namespace fusegrad::detail
