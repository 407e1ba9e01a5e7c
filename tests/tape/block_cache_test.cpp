// tape/block_cache_test.cpp -- large tensor blocks are recycled per thread, within a limit, and never assumed clean.
#include <cstddef>
#include <cstdint>
#include <utility>

#include <gtest/gtest.h>
#include <Eigen/Core>

#include <fusegrad/fusegrad.hpp>

namespace {

namespace fg = fusegrad;

constexpr std::size_t big = 100'000;  // 800 KB of doubles: well above the cache's 1 KiB threshold

// Destroyed after main returns, when the main thread's block cache and object pool are
// already gone: their blocks must go straight back to the system (a crash or a sanitizer
// report at exit otherwise).
const fg::Tensor global_values = fg::Tensor::ones({big});
const fg::Tensor global_result = fg::Tensor::ones({3}).requires_grad_() * 2.0;

// Every test starts and ends with an empty cache and the default limit.
class BlockCache : public ::testing::Test {
 protected:
  void SetUp() override { fg::release_cached_memory(); }
  void TearDown() override {
    fg::set_cached_memory_limit(std::size_t(256) << 20);
    fg::release_cached_memory();
  }
};

TEST(GlobalTensors, LiveUntilAfterMain) {
  EXPECT_EQ(global_values.eigen().sum(), double(big));
  EXPECT_EQ(global_result.grad_fn_name(), "MulBackward");
}

TEST_F(BlockCache, AFreedBlockServesTheNextTensorOfItsSize) {
  const double* first = nullptr;
  {
    const fg::Tensor t = fg::Tensor::zeros({big});
    first = t.data();
    EXPECT_EQ(fg::cached_memory_bytes(), 0u);
  }
  EXPECT_EQ(fg::cached_memory_bytes(), big * sizeof(double));
  const fg::Tensor again = fg::Tensor::ones({big});
  EXPECT_EQ(again.data(), first);
  EXPECT_EQ(fg::cached_memory_bytes(), 0u);
  EXPECT_EQ(again.eigen().sum(), double(big));  // recycled, then written: no stale values
}

// Heap values of 1 KiB and up start on a cache line, fresh or recycled.
TEST_F(BlockCache, HeapValuesAndGradientsOfAKibibyteAndUpAreCacheLineAligned) {
  auto aligned = [](const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 64 == 0; };
  for (const std::size_t n : {std::size_t(128), std::size_t(1000), big}) {
    fg::Tensor x = fg::Tensor::ones({n}).requires_grad_();
    fg::Tensor loss = fg::sum(x * x);
    loss.backward();
    EXPECT_TRUE(aligned(x.data())) << n;
    EXPECT_TRUE(aligned(x.grad().data())) << n;
  }
  ASSERT_GT(fg::cached_memory_bytes(), 0u);  // the loop gave big blocks back
  const std::size_t cached = fg::cached_memory_bytes();
  const fg::Tensor recycled = fg::Tensor::zeros({big});
  EXPECT_LT(fg::cached_memory_bytes(), cached);  // it took one of them
  EXPECT_TRUE(aligned(recycled.data()));
}

// Blocks of a few KiB are recycled too: glibc's malloc would give a loop's freed blocks back to the system as soon
// as 128 KiB of them lay free at the top of its heap, and every iteration would fault on their pages again.
TEST_F(BlockCache, BlocksOfAKibibyteAndUpAreRecycled) {
  for (const std::size_t n : {std::size_t(128), std::size_t(512), std::size_t(4096)}) {  // 1, 4 and 32 KiB
    // The last size's block goes first.
    fg::release_cached_memory();
    const double* first = nullptr;
    {
      const fg::Tensor t = fg::Tensor::zeros({n});
      first = t.data();
    }
    EXPECT_EQ(fg::cached_memory_bytes(), n * sizeof(double)) << n;
    const fg::Tensor again = fg::Tensor::ones({n});
    EXPECT_EQ(again.data(), first) << n;
    EXPECT_EQ(fg::cached_memory_bytes(), 0u) << n;
    EXPECT_EQ(again.eigen().sum(), double(n)) << n;
  }
}

// Of the blocks that fit (at most a quarter larger than asked), the smallest is handed out.
TEST_F(BlockCache, TheSmallestBlockThatFitsIsHandedOut) {
  const double* block_1100 = nullptr;
  const double* block_1200 = nullptr;
  {
    const fg::Tensor a = fg::Tensor::zeros({1300}), b = fg::Tensor::zeros({1100}), c = fg::Tensor::zeros({1200});
    block_1100 = b.data();
    block_1200 = c.data();
  }
  EXPECT_EQ(fg::cached_memory_bytes(), 3600 * sizeof(double));
  const fg::Tensor first = fg::Tensor::zeros({1000});
  EXPECT_EQ(first.data(), block_1100);
  const fg::Tensor second = fg::Tensor::zeros({1000});
  EXPECT_EQ(second.data(), block_1200);
  const fg::Tensor third = fg::Tensor::zeros({1000});  // 1300 is more than a quarter larger: a new block
  EXPECT_EQ(fg::cached_memory_bytes(), 1300 * sizeof(double));
  EXPECT_EQ(third.eigen().size(), 1000);
}

TEST_F(BlockCache, SmallTensorsAndFarLargerBlocksAreNotCached) {
  { const fg::Tensor small = fg::Tensor::zeros({100}); }
  EXPECT_EQ(fg::cached_memory_bytes(), 0u);
  { const fg::Tensor t = fg::Tensor::zeros({4 * big}); }
  EXPECT_EQ(fg::cached_memory_bytes(), 4 * big * sizeof(double));
  const fg::Tensor smaller = fg::Tensor::zeros({big});  // a block 4x too large is not handed out
  EXPECT_EQ(fg::cached_memory_bytes(), 4 * big * sizeof(double));
}

TEST_F(BlockCache, TheLimitBoundsWhatIsKept) {
  fg::set_cached_memory_limit(big * sizeof(double));
  { const fg::Tensor a = fg::Tensor::zeros({big}), b = fg::Tensor::zeros({big}); }
  EXPECT_EQ(fg::cached_memory_bytes(), big * sizeof(double));  // the second did not fit
  fg::set_cached_memory_limit(0);
  EXPECT_EQ(fg::cached_memory_bytes(), 0u);
  { const fg::Tensor c = fg::Tensor::zeros({big}); }
  EXPECT_EQ(fg::cached_memory_bytes(), 0u);
}

// Recycled blocks hold the previous iteration's numbers: every gradient buffer must be
// written before it is read, so a second identical iteration gives identical gradients.
TEST_F(BlockCache, RecycledBlocksGiveTheSameGradients) {
  const fg::Tensor x = fg::Tensor::arange(0.0, 1.0, 1.0 / double(big));
  const fg::Tensor y = x * 3.0 + 1.0;
  fg::Tensor b = fg::Tensor::scalar(0.5).requires_grad_(), w = fg::Tensor::scalar(2.0).requires_grad_();
  auto step = [&] {
    b.zero_grad();
    w.zero_grad();
    const fg::Tensor loss = fg::taped(fg::mean(fg::square(b + w * x - y)));
    loss.backward();
    return Eigen::Array3d(loss.item(), b.grad().item(), w.grad().item());
  };
  const Eigen::Array3d first = step();
  EXPECT_GT(fg::cached_memory_bytes(), 0u);
  const Eigen::Array3d second = step();
  EXPECT_EQ(first[0], second[0]);
  EXPECT_EQ(first[1], second[1]);
  EXPECT_EQ(first[2], second[2]);
  // r = (w - 3) x + (b - 1) = -x - 0.5: dL/db = 2 mean(r) = -2 mean(x) - 1
  const Eigen::ArrayXd xs = x.eigen();
  EXPECT_NEAR(first[1], -2 * xs.mean() - 1, 1e-12);
}

}  // namespace

namespace {

// small_buffer, what tensors and sweeps keep values in: moves keep values, in place or not.
TEST(SmallBuffer, MovesInlineAndHeapValues) {
  fg::detail::small_buffer<double> few(3, 1.5);
  const fg::detail::small_buffer<double> moved_few(std::move(few));
  EXPECT_EQ(moved_few.size(), 3u);
  EXPECT_EQ(moved_few[2], 1.5);
  EXPECT_EQ(few.size(), 0u);  // NOLINT(bugprone-use-after-move): the moved-from state is specified

  fg::detail::small_buffer<double> many(big, 2.5);
  const double* block = many.data();
  const fg::detail::small_buffer<double> moved_many(std::move(many));
  EXPECT_EQ(moved_many.data(), block);  // the block changes owner, it is not copied
  EXPECT_EQ(moved_many[big - 1], 2.5);
  EXPECT_EQ(many.size(), 0u);  // NOLINT(bugprone-use-after-move)
}

}  // namespace
