// memory/memory_test.cpp -- how much memory the tape holds: per retained operation, and when graphs are
// recorded on one thread and freed on another.
//
// Every replaceable global operator new/delete is replaced here by a version that counts the bytes
// live (asked for and not yet given back), so this file is its own executable (tests/memory/).
// Eigen's own allocations (none on these paths) are not counted.
#include <atomic>
#include <cmath>
#include <cstddef>
#include <cstdlib>
#include <new>
#include <semaphore>
#include <string>
#include <thread>
#include <utility>

#include <gtest/gtest.h>

#include <fusegrad/fusegrad.hpp>

#include "support/expect_error.hpp"

// --- the counting global operator new/delete ------------------------------------------------------

namespace {
std::atomic<std::ptrdiff_t> live_bytes{0};

// Each block starts with a header that records its size; it is as large as the block's
// alignment, so the pointer handed out keeps that alignment.
void* counted_alloc(std::size_t n, std::size_t align = __STDCPP_DEFAULT_NEW_ALIGNMENT__) {
  const std::size_t header = align;
  void* raw = std::aligned_alloc(align, (header + n + align - 1) / align * align);
  if (!raw) return nullptr;
  *static_cast<std::size_t*>(raw) = n;
  live_bytes.fetch_add(static_cast<std::ptrdiff_t>(n), std::memory_order_relaxed);
  return static_cast<std::byte*>(raw) + header;
}
void counted_free(void* p, std::size_t align = __STDCPP_DEFAULT_NEW_ALIGNMENT__) noexcept {
  if (!p) return;
  void* raw = static_cast<std::byte*>(p) - align;
  live_bytes.fetch_sub(static_cast<std::ptrdiff_t>(*static_cast<std::size_t*>(raw)), std::memory_order_relaxed);
  std::free(raw);
}
// More than any machine that runs the tests has: refused here, as the system refuses it, so that running out of
// memory can be tested under AddressSanitizer too (whose allocator stops the program at such a size instead).
constexpr std::size_t more_than_there_is = std::size_t(1) << 40;
// When set, the next request is refused, whatever its size: memory that has run out for it alone.
std::atomic<bool> refuse_next{false};
void* counted_new(std::size_t n, std::size_t align = __STDCPP_DEFAULT_NEW_ALIGNMENT__) {
  if (n < more_than_there_is && !refuse_next.exchange(false, std::memory_order_relaxed))
    if (void* p = counted_alloc(n, align)) return p;
  throw std::bad_alloc();
}
}  // namespace

void* operator new(std::size_t n) { return counted_new(n); }
void* operator new[](std::size_t n) { return counted_new(n); }
void* operator new(std::size_t n, const std::nothrow_t&) noexcept { return counted_alloc(n); }
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept { return counted_alloc(n); }
void* operator new(std::size_t n, std::align_val_t a) { return counted_new(n, static_cast<std::size_t>(a)); }
void* operator new[](std::size_t n, std::align_val_t a) { return counted_new(n, static_cast<std::size_t>(a)); }
void* operator new(std::size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
  return counted_alloc(n, static_cast<std::size_t>(a));
}
void* operator new[](std::size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
  return counted_alloc(n, static_cast<std::size_t>(a));
}
void operator delete(void* p) noexcept { counted_free(p); }
void operator delete[](void* p) noexcept { counted_free(p); }
void operator delete(void* p, std::size_t) noexcept { counted_free(p); }
void operator delete[](void* p, std::size_t) noexcept { counted_free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { counted_free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { counted_free(p); }
void operator delete(void* p, std::align_val_t a) noexcept { counted_free(p, static_cast<std::size_t>(a)); }
void operator delete[](void* p, std::align_val_t a) noexcept { counted_free(p, static_cast<std::size_t>(a)); }
void operator delete(void* p, std::size_t, std::align_val_t a) noexcept {
  counted_free(p, static_cast<std::size_t>(a));
}
void operator delete[](void* p, std::size_t, std::align_val_t a) noexcept {
  counted_free(p, static_cast<std::size_t>(a));
}
void operator delete(void* p, std::align_val_t a, const std::nothrow_t&) noexcept {
  counted_free(p, static_cast<std::size_t>(a));
}
void operator delete[](void* p, std::align_val_t a, const std::nothrow_t&) noexcept {
  counted_free(p, static_cast<std::size_t>(a));
}

namespace {

namespace fg = fusegrad;
using fg::Tensor;

std::ptrdiff_t live() { return live_bytes.load(); }

// The bytes live after `first_mark` and after `last_mark` graphs, when a producer thread records
// each graph (record() returns its loss) and hands it to a consumer thread, which runs backward
// and drops it; they take turns, and the consumer reads the counter after each drop.
template <class Record>
std::pair<std::ptrdiff_t, std::ptrdiff_t> live_bytes_between_threads(int first_mark, int last_mark, Record record) {
  Tensor handed_over;
  std::binary_semaphore recorded(0), consumed(0);
  std::ptrdiff_t at_first_mark = 0, at_last_mark = 0;
  std::thread producer([&] {
    for (int k = 1; k <= last_mark; ++k) {
      handed_over = record();
      recorded.release();
      consumed.acquire();
    }
  });
  std::thread consumer([&] {
    for (int k = 1; k <= last_mark; ++k) {
      recorded.acquire();
      handed_over.backward();
      handed_over = Tensor();
      if (k == first_mark) at_first_mark = live();
      if (k == last_mark) at_last_mark = live();
      consumed.release();
    }
  });
  producer.join();
  consumer.join();
  return {at_first_mark, at_last_mark};
}

// Small tensors, fused and taped nodes, a deferred sum. What the consumer frees was allocated by
// the producer: the memory live after 6000 graphs must be what it was after 1000, whatever either
// thread keeps for reuse.
TEST(Memory, GraphsRecordedOnOneThreadAndFreedOnAnotherKeepMemoryFlat) {
  const Tensor x = Tensor::arange(1, 17) / 16.0;
  Tensor w = Tensor::scalar(0.5).requires_grad_();
  const auto [after_1000, after_6000] = live_bytes_between_threads(1000, 6000, [&] {
    const Tensor h = fg::taped(fg::sin(w * x));
    return Tensor(fg::sum(h * fg::exp(-x)) + fg::taped(fg::mean(h * h)));
  });
  EXPECT_EQ(after_6000, after_1000);
  EXPECT_TRUE(w.grad().defined());
}

// The same with values of 1 KiB and more (here 160 KB), which threads recycle through their block cache (products, not
// transcendental functions, so that the test stays quick in unoptimised sanitizer builds).
TEST(Memory, LargeTensorsRecordedOnOneThreadAndFreedOnAnotherKeepMemoryFlat) {
  const Tensor x = Tensor::randn({20'000}, 7);
  Tensor w = Tensor::scalar(0.5).requires_grad_();
  const auto [after_100, after_400] =
      live_bytes_between_threads(100, 400, [&] { return fg::taped(fg::sum((w * x) * x)); });
  EXPECT_EQ(after_400, after_100);
}

// One thread that records and frees its own graphs keeps its blocks for the next graph: after the
// first iteration, a training loop's iterations ask the system for nothing more.
TEST(Memory, ALoopOnOneThreadReusesItsBlocks) {
  const Tensor x = Tensor::arange(1, 17) / 16.0;
  Tensor w = Tensor::scalar(0.5).requires_grad_();
  std::ptrdiff_t after_first = 0;
  for (int k = 0; k < 1000; ++k) {
    const Tensor loss = fg::taped(fg::mean(fg::square(fg::sin(w * x) - x)));
    loss.backward();
    w.zero_grad();
    if (k == 0) after_first = live();
  }
  EXPECT_EQ(live(), after_first);
}

// 20000 steps of a linear regression's training loop (fused loss, backward, an update under
// NoGradGuard, zero_grad) hold the same live bytes after the first steps as after the last.
TEST(Memory, TrainingStepsKeepMemoryFlat) {
  const Tensor x = Tensor::linspace(0, 1, 80);
  const Tensor y = Tensor(1.5 - 0.5 * x);
  Tensor b = Tensor::scalar(0.0).requires_grad_(), w = Tensor::scalar(0.0).requires_grad_();
  std::ptrdiff_t after_warm_up = 0;
  for (int step = 1; step <= 20'000; ++step) {
    const Tensor loss = fg::mean(fg::square(b + w * x - y));
    loss.backward();
    {
      fg::NoGradGuard no_grad;
      b.sub_(b.grad(), 0.5);
      w.sub_(w.grad(), 0.5);
    }
    b.zero_grad();
    w.zero_grad();
    if (step == 100) after_warm_up = live();
  }
  EXPECT_EQ(live(), after_warm_up);
  EXPECT_NEAR(b.item(), 1.5, 1e-9);  // the line is exact: the loop converged to it
  EXPECT_NEAR(w.item(), -0.5, 1e-9);
}

// Memory running out is fusegrad's memory_error, which says how much was asked for (PyTorch's "can't allocate
// memory"), and leaks nothing: a tensor too large, and a broadcast whose result is too large.
TEST(Memory, MemoryThatRunsOutIsAFusegradErrorThatSaysHowMuch) {
  const Tensor ones = Tensor::ones({1 << 10});
  const std::ptrdiff_t before = live();
  fg::test::expect_error<fg::memory_error>([] { (void)Tensor::zeros({std::size_t(1) << 38}); },  // 2 TiB of doubles
                                           {"cannot allocate 2199023255552 bytes", "memory ran out"});
  fg::test::expect_error<fg::memory_error>(
      [&] {
        (void)Tensor(fg::broadcast_to(ones, {std::size_t(1) << 30, std::size_t(1) << 10}));
      },
      {"cannot allocate 8796093022208 bytes"});
  EXPECT_EQ(live(), before);
}

// A count whose bytes overflow the address space is refused as memory that runs out, before its byte count can wrap
// around to a small allocation that the values would overrun. (A tensor's extents refuse such a count first.)
TEST(Memory, ACountTooLargeToAddressIsAMemoryError) {
  const std::ptrdiff_t before = live();
  fg::test::expect_error<fg::memory_error>([] { (void)fg::GradientArray<double>((std::size_t(1) << 61) + 1); },
                                           {"2305843009213693953 values of 8 bytes"});
  EXPECT_EQ(live(), before);
}

// A GradientArray whose resize fails keeps its values and its block: another gradient made afterwards gets memory of
// its own. A negative size is refused before anything changes.
TEST(Memory, AGradientArrayWhoseResizeFailsKeepsItsValues) {
  fg::GradientArray<double> g(1000);
  for (Eigen::Index i = 0; i < g.size(); ++i) g[i] = double(i);
  const double* block = g.data();
  fg::test::expect_error<fg::memory_error>([&] { g.resize(Eigen::Index(1) << 38); }, {"cannot allocate"});
  fg::test::expect_error<fg::value_error>([&] { g.resize(-1); }, {"resize(-1)", "0 or more"});
  ASSERT_EQ(g.size(), 1000);
  EXPECT_EQ(g.data(), block);
  EXPECT_EQ(g[999], 999.0);
  const fg::GradientArray<double> other(1000);
  EXPECT_NE(other.data(), g.data());
}

// Memory that runs out for a tensor's state and small values (the pool's blocks) is a memory_error too, not the
// allocator's std::bad_alloc. On a thread of its own, whose pool holds no block of that size yet: the tensor's block
// of values is the first request it makes.
TEST(Memory, APoolBlockThatCannotBeHadIsAMemoryError) {
  std::thread([] {
    { const Tensor warm = Tensor::zeros({2}); }  // the thread's pool and its blocks for a tensor's state
    refuse_next = true;
    enum { none, memory_error, bad_alloc, other } thrown = none;
    try {
      (void)Tensor::zeros({16});  // 128 bytes of values: in the block with the storage
    } catch (const fg::memory_error&) {
      thrown = memory_error;
    } catch (const std::bad_alloc&) {
      thrown = bad_alloc;
    } catch (...) {
      thrown = other;
    }
    EXPECT_FALSE(refuse_next);
    EXPECT_EQ(thrown, memory_error);
  }).join();
}

// A chain of retained one-element operations, t = t * c, as a scalar loop on the tape builds:
// each operation holds one block (its node, its output tensor's state and its one value). The
// chain is recorded on a thread of its own, whose pool starts empty, so every block is counted.
TEST(Memory, ARetainedOneElementOperationHoldsAtMost256Bytes) {
  constexpr int length = 100'000;
  constexpr double factor = 1.0000001;
  double bytes_per_op = 0, gradient = 0;
  std::thread([&] {
    Tensor x = Tensor::scalar(1.0).requires_grad_();
    Tensor t = x;
    const std::ptrdiff_t before = live();
    for (int k = 0; k < length; ++k) t = fg::taped(t * factor);
    bytes_per_op = double(live() - before) / length;
    t.backward();
    gradient = x.grad().item();
  }).join();
  RecordProperty("bytes_per_op", std::to_string(bytes_per_op));
  EXPECT_LE(bytes_per_op, 256.0);
  EXPECT_GT(bytes_per_op, 0.0);
  EXPECT_NEAR(gradient, std::pow(factor, length), 1e-9);  // d t / d x = factor^length
}

}  // namespace
