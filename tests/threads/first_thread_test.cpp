// threads/first_thread_test.cpp -- what one thread does before a second starts: while the process runs one thread,
// reference counts and the graph's lock change with plain stores (tape/single_threaded.hpp); a thread started later
// must see the counts and a held lock as they are.
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include <fusegrad/fusegrad.hpp>

namespace {

namespace fg = fusegrad;
using fg::Tensor;

// Each case runs in a fresh process (a death test in the "threadsafe" style re-runs this program for it), where no
// thread has started yet; other tests of this program start threads, after which nothing is plain any more. The
// child exits 0 when every check holds, and with the number of the first that failed.
class FirstThread : public testing::Test {
 protected:
  void SetUp() override {
#ifndef FUSEGRAD_KNOWS_SINGLE_THREADED
    GTEST_SKIP() << "no __libc_single_threaded here (or FUSEGRAD_ALWAYS_ATOMIC): counts and locks are always atomic";
#endif
    GTEST_FLAG_SET(death_test_style, "threadsafe");
  }
};

constexpr int process_has_threads = 10;  // something started a thread before main: these cases cannot run

// A graph recorded before the first thread starts, shared with threads that copy and drop its tensors and run backward
// through it: every count is right (AddressSanitizer sees a use after free or a leak otherwise) and the gradient is.
int share_counts_with_later_threads() {
  if (!fg::detail::single_threaded()) return process_has_threads;
  Tensor x = Tensor::from({0.5, 1.5, -2.0}).requires_grad_();
  const Tensor y = fg::sin(x) * x;  // recorded with plain counts
  std::vector<std::thread> threads;
  std::atomic<int> copies{0};
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&] {
      for (int i = 0; i < 20000; ++i) {
        Tensor a = x, b = y;
        copies.fetch_add(1, std::memory_order_relaxed);
      }
    });
  for (auto& t : threads) t.join();
  if (fg::detail::single_threaded()) return 1;
  if (copies.load() != 80000) return 2;
  const Tensor loss = fg::sum(y);
  loss.backward();
  const double dx0 = std::sin(0.5) + 0.5 * std::cos(0.5);
  if (std::abs(x.grad().at({0}) - dx0) > 1e-15) return 3;
  return 0;
}

// The graph's lock held (with a plain store) when a thread starts: the thread waits for its release.
int a_lock_held_before_the_first_thread_is_held_for_it() {
  if (!fg::detail::single_threaded()) return process_has_threads;
  fg::detail::sleeping_lock lock;
  lock.lock();
  std::atomic<bool> entered{false};
  std::thread waiting([&] {
    lock.lock();
    entered.store(true);
    lock.unlock();
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  if (entered.load()) return 1;
  if (fg::detail::single_threaded()) return 2;
  lock.unlock();  // with another thread running: wakes it
  waiting.join();
  return entered.load() ? 0 : 3;
}

TEST_F(FirstThread, CountsMadePlainlyAreSharedWithLaterThreads) {
  EXPECT_EXIT(std::exit(share_counts_with_later_threads()), testing::ExitedWithCode(0), "");
}

TEST_F(FirstThread, ALockHeldBeforeTheFirstThreadStartsIsHeldForIt) {
  EXPECT_EXIT(std::exit(a_lock_held_before_the_first_thread_is_held_for_it()), testing::ExitedWithCode(0), "");
}

}  // namespace
