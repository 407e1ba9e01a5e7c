// alloc/no_allocation_test.cpp -- value_and_grad on fully static shapes touches no heap; on dyn shapes it takes
// the gradient arrays from the heap, and the blocks of large ones from the thread's cache.
//
// Two counters, because Eigen does not allocate through operator new:
//   * every replaceable global operator new/delete is replaced here by a counting version
//     (std::vector, std::string, shared_ptr ... anything C++ allocates);
//   * Eigen's own heap allocations (aligned_malloc and friends) are counted through Eigen's
//     EIGEN_RUNTIME_NO_MALLOC hook: inside the measured region malloc is "not allowed", and the
//     eigen_assert that Eigen then raises is counted instead of aborting.
// This file is its own executable (tests/alloc/) so that the replaced operator new cannot disturb
// other tests; gtest allocates too, so only the region inside count_allocations() is measured.
#include <atomic>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <vector>

namespace alloc_test {
inline std::atomic<std::size_t> new_calls{0};
inline std::atomic<std::size_t> eigen_mallocs{0};

// Eigen's assertions: a forbidden heap allocation is counted; any other failed assertion aborts as assert would.
[[gnu::noinline]] inline void eigen_assert_failed(const char* condition, const char* file, int line) {
  if (std::strstr(condition, "heap allocation is forbidden")) {
    ++eigen_mallocs;
    return;
  }
  std::fprintf(stderr, "%s:%d: Eigen assertion failed: %s\n", file, line, condition);
  std::abort();
}
}  // namespace alloc_test

#define EIGEN_RUNTIME_NO_MALLOC
#define eigen_assert(x) ((x) ? void(0) : ::alloc_test::eigen_assert_failed(#x, __FILE__, __LINE__))

#include <gtest/gtest.h>
#include <Eigen/Core>

#include <fusegrad/fusegrad.hpp>

// --- the counting global operator new/delete: every replaceable form ------------------------------

namespace {
void* counted_alloc(std::size_t n) {
  ++alloc_test::new_calls;
  return std::malloc(n ? n : 1);
}
void* counted_aligned_alloc(std::size_t n, std::align_val_t a) {
  ++alloc_test::new_calls;
  const auto align = static_cast<std::size_t>(a);
  return std::aligned_alloc(align, (n + align - 1) / align * align);
}
}  // namespace

void* operator new(std::size_t n) {
  if (void* p = counted_alloc(n)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t n) {
  if (void* p = counted_alloc(n)) return p;
  throw std::bad_alloc();
}
void* operator new(std::size_t n, const std::nothrow_t&) noexcept { return counted_alloc(n); }
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept { return counted_alloc(n); }
void* operator new(std::size_t n, std::align_val_t a) {
  if (void* p = counted_aligned_alloc(n, a)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t n, std::align_val_t a) {
  if (void* p = counted_aligned_alloc(n, a)) return p;
  throw std::bad_alloc();
}
void* operator new(std::size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
  return counted_aligned_alloc(n, a);
}
void* operator new[](std::size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
  return counted_aligned_alloc(n, a);
}
// GCC pairs `operator delete` with `operator new` and warns that free() does not match new; here
// new is malloc, so free is its match.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t, const std::nothrow_t&) noexcept { std::free(p); }

namespace {

namespace fg = fusegrad;

struct Allocations {
  std::size_t new_calls;
  std::size_t eigen_mallocs;
  [[nodiscard]] std::size_t total() const { return new_calls + eigen_mallocs; }
};

// Runs f() and counts the heap allocations it makes; nothing else runs in between.
template <class F>
Allocations count_allocations(F&& f) {
  const std::size_t new_before = alloc_test::new_calls, eigen_before = alloc_test::eigen_mallocs;
  Eigen::internal::set_is_malloc_allowed(false);
  f();
  Eigen::internal::set_is_malloc_allowed(true);
  return {alloc_test::new_calls - new_before, alloc_test::eigen_mallocs - eigen_before};
}

template <class X>
auto b1(const X& x) {
  return fg::sum(fg::sin(x) * fg::exp(-x * x) + fg::log1p(x * x));
}

// The counters themselves: a std::vector and a dynamic Eigen array are each seen.
TEST(NoAllocation, TheCountersSeeBothKindsOfAllocation) {
  const Allocations vector = count_allocations([] {
    std::vector<int> v(100);
    v[7] = 1;
  });
  EXPECT_GE(vector.new_calls, 1u);
  const Allocations eigen = count_allocations([] {
    Eigen::ArrayXd a = Eigen::ArrayXd::Zero(100);
    a[7] = 1;
  });
  EXPECT_GE(eigen.eigen_mallocs, 1u);
}

TEST(NoAllocation, B1OnAStaticShape) {
  fg::Var<double, fg::Shape<16>> x(Eigen::ArrayXd::LinSpaced(16, -2, 2));
  double value = 0, d0 = 0;
  const Allocations n = count_allocations([&] {
    const auto [v, dx] = fg::value_and_grad(b1(x), x);
    value = v;
    d0 = dx[0];
  });
  EXPECT_EQ(n.total(), 0u) << n.new_calls << " operator new, " << n.eigen_mallocs << " Eigen mallocs";
  EXPECT_NE(value, 0.0);  // the work was done: d/dx at x = -2 is cos(-2)e^-4 + 4 sin(-2)e^-4 - 4/5
  EXPECT_NEAR(d0, std::cos(-2.0) * std::exp(-4.0) + 4 * std::sin(-2.0) * std::exp(-4.0) - 0.8, 1e-14);
}

TEST(NoAllocation, B4OnScalars) {
  fg::Var<double, fg::Shape<>> x(0.7), y(-1.3), z(2.1);
  double dz = 0;
  const Allocations n = count_allocations([&] {
    const auto [v, gx, gy, gz] = fg::value_and_grad(x * y + fg::sin(x) * fg::exp(z) - y / z, x, y, z);
    dz = gz;
  });
  EXPECT_EQ(n.total(), 0u) << n.new_calls << " operator new, " << n.eigen_mallocs << " Eigen mallocs";
  EXPECT_NEAR(dz, std::sin(0.7) * std::exp(2.1) - 1.3 / (2.1 * 2.1), 1e-14);
}

TEST(NoAllocation, MatmulOfStaticShapes) {
  fg::Var<double, fg::Shape<4, 3>> a(fg::Extents{4, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
  fg::Var<double, fg::Shape<3, 2>> b(fg::Extents{3, 2}, {1, 0, 0, 1, 1, 1});
  double value = 0, da0 = 0;
  const Allocations n = count_allocations([&] {
    const auto [v, da, db] = fg::value_and_grad(fg::sum(fg::tanh(fg::matmul(a, b))), a, b);
    value = v;
    da0 = da[0];
  });
  EXPECT_EQ(n.total(), 0u) << n.new_calls << " operator new, " << n.eigen_mallocs << " Eigen mallocs";
  // Row 0 of AB is [1 + 3, 2 + 3] = [4, 5]; dA_00 = (1 - tanh(4)^2) * B_00 + (1 - tanh(5)^2) * B_01.
  EXPECT_NEAR(da0, 1 - std::tanh(4.0) * std::tanh(4.0), 1e-15);
  EXPECT_GT(value, 0.0);
}

TEST(NoAllocation, BroadcastOfStaticShapes) {
  fg::Var<double, fg::Shape<3, 1>> a{1.0, 2.0, 3.0};
  fg::Var<double, fg::Shape<1, 4>> b{1.0, 2.0, 3.0, 4.0};
  double value = 0, da0 = 0, db0 = 0;
  const Allocations n = count_allocations([&] {
    const auto [v, da, db] = fg::value_and_grad(fg::sum(a * b), a, b);
    value = v;
    da0 = da[0];
    db0 = db[0];
  });
  EXPECT_EQ(n.total(), 0u) << n.new_calls << " operator new, " << n.eigen_mallocs << " Eigen mallocs";
  EXPECT_EQ(value, 60.0);
  EXPECT_EQ(da0, 10.0);
  EXPECT_EQ(db0, 6.0);
}

// vjp with an array upstream on a static shape: the upstream is held in fixed-size storage.
TEST(NoAllocation, VjpWithAnArrayUpstream) {
  fg::Var<double, fg::Shape<3>> x{1.0, 2.0, 3.0};
  const Eigen::Array3d upstream(1.0, 10.0, 100.0);
  double dx2 = 0, f2 = 0;
  const Allocations n = count_allocations([&] {
    const auto [f, dx] = fg::vjp(x * x, upstream, x);
    f2 = f[2];
    dx2 = dx[2];
  });
  EXPECT_EQ(n.total(), 0u) << n.new_calls << " operator new, " << n.eigen_mallocs << " Eigen mallocs";
  EXPECT_EQ(f2, 9.0);
  EXPECT_EQ(dx2, 600.0);  // upstream 100 times d(x^2)/dx = 2 * 3
}

TEST(NoAllocation, AxisReductionAndEvalOfStaticShapes) {
  fg::Var<double, fg::Shape<2, 3>> x{1.0, 2.0, 3.0, 4.0, 5.0, 6.0};
  double value = 0, row1 = 0;
  const Allocations n = count_allocations([&] {
    const auto [v, dx] = fg::value_and_grad(fg::sum(fg::square(fg::sum(x, fg::axes<1>))), x);
    value = v;
    row1 = fg::eval(fg::mean(x, fg::axes<1>))[1];
    (void)dx;
  });
  EXPECT_EQ(n.total(), 0u) << n.new_calls << " operator new, " << n.eigen_mallocs << " Eigen mallocs";
  EXPECT_EQ(value, 36.0 + 225.0);
  EXPECT_EQ(row1, 5.0);
}

// The same B1 on Shape<dyn>: the gradient array alone must come from the heap, and the counters see it.
TEST(NoAllocation, DynShapesDoAllocate) {
  fg::Var<double, fg::Shape<fg::dyn>> x(Eigen::ArrayXd::LinSpaced(16, -2, 2));
  const Allocations n = count_allocations([&] {
    const auto [v, dx] = fg::value_and_grad(b1(x), x);
    (void)v;
    (void)dx;
  });
  EXPECT_GE(n.total(), 1u);
}

// At sizes of 1 KiB and up the gradient array is a block the thread recycles: once one call has dropped its
// gradient, the next takes the same block, and a loop of value_and_grad allocates nothing.
TEST(NoAllocation, DynShapesReuseTheGradientBlockOfTheLastCall) {
  fg::Var<double, fg::Shape<fg::dyn>> x(Eigen::ArrayXd::LinSpaced(65536, -2, 2));
  const double first = std::get<1>(fg::value_and_grad(b1(x), x))[0];  // its gradient dropped at once
  double again = 0;
  const Allocations n = count_allocations([&] {
    const auto [v, dx] = fg::value_and_grad(b1(x), x);
    (void)v;
    again = dx[0];
  });
  EXPECT_EQ(n.total(), 0u) << n.new_calls << " operator new, " << n.eigen_mallocs << " Eigen mallocs";
  EXPECT_EQ(again, first);
}

// The cache itself allocates nothing once a loop's blocks have been filed, however many the loop takes at once (more
// than the first room it makes for its index's entries).
TEST(NoAllocation, TheBlockCacheRefilesAnyNumberOfBlocksWithoutAllocating) {
  using fg::detail::block_cache;
  block_cache::release();
  constexpr std::size_t count = 40, bytes = 4096;
  std::vector<void*> blocks(count);
  const auto take_and_give_back = [&] {
    for (void*& p : blocks) {
      std::size_t size = bytes;
      p = block_cache::allocate(size);
    }
    for (void* p : blocks) block_cache::deallocate(p, bytes);
  };
  take_and_give_back();  // the first round gets its blocks from the system and files them
  const Allocations n = count_allocations(take_and_give_back);
  EXPECT_EQ(n.total(), 0u) << n.new_calls << " operator new, " << n.eigen_mallocs << " Eigen mallocs";
  EXPECT_EQ(block_cache::cached_bytes(), count * bytes);
  block_cache::release();
}

// value_and_grad_into on Shape<dyn>, at a size whose arrays would come from the heap: the caller's
// buffers take the gradients, and nothing is allocated.
TEST(NoAllocation, DynShapesIntoTheCallersBuffers) {
  const Eigen::ArrayXd data = Eigen::ArrayXd::LinSpaced(65536, -2, 2);
  fg::Var<double, fg::Shape<fg::dyn>, fg::view> x(data.data(), {65536});
  const fg::Var<double, fg::Shape<>> s(2.0);
  Eigen::ArrayXd dx(65536);
  double ds = 0, value = 0;
  const Allocations n = count_allocations([&] { value = fg::value_and_grad_into(s * b1(x), std::tie(dx, ds), x, s); });
  EXPECT_EQ(n.total(), 0u) << n.new_calls << " operator new, " << n.eigen_mallocs << " Eigen mallocs";
  EXPECT_EQ(ds * 2.0, value);  // value = s * b1(x), ds = b1(x)
  // d/dx at x = -2, times s = 2: 2 (cos(-2) e^-4 + 4 sin(-2) e^-4 - 4/5).
  EXPECT_NEAR(dx[0], 2 * (std::cos(-2.0) * std::exp(-4.0) + 4 * std::sin(-2.0) * std::exp(-4.0) - 0.8), 1e-13);
}

}  // namespace
