// expr/gradient_array_test.cpp -- the gradients value_and_grad returns for vars on the heap: Eigen arrays whose
// blocks go back to the thread's cache when dropped, and that copy, move and assign as Eigen arrays do.
#include <cstddef>
#include <type_traits>
#include <utility>

#include <gtest/gtest.h>

#include <fusegrad/fusegrad.hpp>

namespace fg = fusegrad;

namespace {

using Dyn = fg::Shape<fg::dyn>;
using fg::detail::block_cache;

fg::Var<double, Dyn> ramp(std::size_t n) {
  fg::Var<double, Dyn> x({n});
  for (std::size_t i = 0; i < n; ++i) x.value()[Eigen::Index(i)] = 0.5 * double(i) - 3;
  return x;
}

TEST(GradientArray, IsWhatValueAndGradReturnsForHeapVarsOnly) {
  const fg::Var<double, Dyn> x({3}, {1.0, 2.0, 3.0});
  const fg::Var<double, fg::Shape<3>> fixed{1.0, 2.0, 3.0};
  const fg::Var<double, fg::Shape<>> scalar(2.0);
  auto [value, dx, dfixed, dscalar] = fg::value_and_grad(fg::sum(x * x) + fg::sum(fixed) * scalar, x, fixed, scalar);
  static_assert(std::is_same_v<decltype(dx), fg::GradientArray<double>>);
  static_assert(std::is_same_v<decltype(dfixed), Eigen::Array<double, 3, 1>>);  // fixed-size: no heap at all
  static_assert(std::is_same_v<decltype(dscalar), double>);
  EXPECT_DOUBLE_EQ(value, 1 + 4 + 9 + 6 * 2.0);
  // d/dx sum(x^2) = 2x; d/dfixed = scalar; d/dscalar = sum(fixed) = 6.
  EXPECT_TRUE((dx == Eigen::Array3d(2, 4, 6)).all());
  EXPECT_TRUE((dfixed == 2.0).all());
  EXPECT_EQ(dscalar, 6.0);
}

TEST(GradientArray, AGradientDroppedLeavesItsBlockForTheNextCall) {
  block_cache::release();
  const std::size_t n = 1 << 16;  // 512 KiB: past malloc's mmap threshold, recycled by the cache
  const auto x = ramp(n);
  const double* first = nullptr;
  {
    const auto dx = fg::grad(fg::sum(x * x), x);
    first = dx.data();
    EXPECT_EQ(block_cache::cached_bytes(), 0u);
    for (std::size_t i = 0; i < n; i += 4099) EXPECT_EQ(dx[Eigen::Index(i)], 2 * x.data()[i]);
  }
  EXPECT_EQ(block_cache::cached_bytes(), n * sizeof(double));
  const auto again = fg::grad(fg::sum(x * x), x);
  EXPECT_EQ(again.data(), first);
  EXPECT_EQ(block_cache::cached_bytes(), 0u);
  for (std::size_t i = 0; i < n; i += 4099) EXPECT_EQ(again[Eigen::Index(i)], 2 * x.data()[i]);
}

TEST(GradientArray, AVarNamedTwiceAndVjpGetTheirOwnArrays) {
  const fg::Var<double, Dyn> x({3}, {1.0, 2.0, 3.0});
  auto [value, first, second] = fg::value_and_grad(fg::sum(x * x), x, x);
  EXPECT_EQ(value, 14.0);
  EXPECT_TRUE((first == Eigen::Array3d(2, 4, 6)).all());  // d/dx sum(x^2) = 2x, for each naming
  EXPECT_TRUE((second == first).all());
  EXPECT_NE(first.data(), second.data());
  const auto [y, dx] = fg::vjp(x * x, Eigen::Array3d(1, 10, 100), x);
  static_assert(std::is_same_v<std::remove_const_t<decltype(dx)>, fg::GradientArray<double>>);
  EXPECT_TRUE((dx == Eigen::Array3d(2, 40, 600)).all());  // upstream times 2x
  EXPECT_EQ(y[2], 9.0);
}

// Sizes held in place (up to small_buffer's inline capacity) and on the heap.
class GradientArraySizes : public ::testing::TestWithParam<std::size_t> {};

TEST_P(GradientArraySizes, CopiesAreDeepAndMovesCarryTheValues) {
  const std::size_t n = GetParam();
  const auto x = ramp(n);
  fg::GradientArray<double> dx = fg::grad(fg::sum(3.0 * x), x);
  ASSERT_EQ(std::size_t(dx.size()), n);
  EXPECT_TRUE((dx == 3.0).all());

  fg::GradientArray<double> copy = dx;
  copy[0] = -1;
  EXPECT_EQ(dx[0], 3.0);
  EXPECT_NE(copy.data(), dx.data());

  fg::GradientArray<double> moved = std::move(copy);
  EXPECT_EQ(copy.size(), 0);  // NOLINT(bugprone-use-after-move): a moved-from array is empty
  copy = dx * 0 + 9;          // the source takes other values: the moved array must not read them
  ASSERT_EQ(std::size_t(moved.size()), n);
  EXPECT_EQ(moved[0], -1.0);
  EXPECT_TRUE((moved.tail(Eigen::Index(n) - 1) == 3.0).all());
  const auto* first = reinterpret_cast<const char*>(moved.data());
  const auto* inside = reinterpret_cast<const char*>(&moved);
  if (n <= 4) {  // values held in place move with it
    EXPECT_TRUE(first >= inside && first < inside + sizeof moved);
  }

  fg::GradientArray<double> target(1);
  target = std::move(moved);
  ASSERT_EQ(std::size_t(target.size()), n);
  EXPECT_EQ(target[0], -1.0);
  target = dx;
  EXPECT_TRUE((target == 3.0).all());
  EXPECT_NE(target.data(), dx.data());
  const fg::GradientArray<double>& same = target;
  target = same;  // self-assignment keeps the values
  EXPECT_TRUE((target == 3.0).all());
}

TEST_P(GradientArraySizes, TakesNumbersResizesAndConvertsFromMatrices) {
  const std::size_t n = GetParam();
  fg::GradientArray<double> g(n);
  g = 0.5;
  EXPECT_TRUE((g == 0.5).all());
  g.resize(Eigen::Index(n) + 3);
  ASSERT_EQ(std::size_t(g.size()), n + 3);
  g = 2.0;
  EXPECT_TRUE((g == 2.0).all());
  const fg::GradientArray<double> from_matrix = Eigen::VectorXd::LinSpaced(Eigen::Index(n), 1, double(n)).array();
  ASSERT_EQ(std::size_t(from_matrix.size()), n);
  EXPECT_EQ(from_matrix[Eigen::Index(n) - 1], double(n));
  static_assert(!std::is_constructible_v<fg::GradientArray<double>, Eigen::ArrayXcd>,
                "complex values do not convert to double");
}

TEST_P(GradientArraySizes, AssignsExpressionsAsAnEigenArrayDoes) {
  const std::size_t n = GetParam();
  auto x = ramp(n);
  fg::GradientArray<double> dx = fg::grad(fg::sum(x * x), x);  // 2x
  const Eigen::ArrayXd twice_x = 2 * x.value();
  dx = 0.5 * dx + 1;  // the same size, reading itself element by element
  EXPECT_TRUE(dx.isApprox(x.value() + 1));
  dx = dx.head(1) * 4;  // another size, reading itself: evaluated before the block changes
  ASSERT_EQ(dx.size(), 1);
  EXPECT_DOUBLE_EQ(dx[0], 4 * (x.value()[0] + 1));
  dx = twice_x;
  EXPECT_TRUE((dx == twice_x).all());
  const Eigen::ArrayXd kept = dx;  // and it converts to a plain array
  EXPECT_TRUE((kept == twice_x).all());
  x.value() -= 0.25 * dx;  // the step of a gradient descent
  EXPECT_DOUBLE_EQ(x.value()[0], 0.5 * ramp(n).value()[0]);
}

// Where an Eigen array is taken as input, a GradientArray is too: a Var's values, vjp's upstream, a tensor's data.
TEST_P(GradientArraySizes, IsTakenWhereAnEigenArrayIs) {
  const std::size_t n = GetParam();
  const auto x = ramp(n);
  const fg::GradientArray<double> dx = fg::grad(fg::sum(x * x), x);  // 2x
  const fg::Var<double, Dyn> w(dx);
  EXPECT_TRUE((w.value() == 2 * x.value()).all());
  const auto [value, dw] = fg::vjp(w * 3.0, dx, w);  // the upstream 2x: 6x
  EXPECT_TRUE((dw == 6 * x.value()).all());
  const fg::Var<double, Dyn, fg::view> viewed(dx);  // its memory, not a copy
  EXPECT_EQ(viewed.data(), dx.data());
  const fg::Tensor t = fg::Tensor::from(dx);
  EXPECT_EQ(t.shape(), (fg::Extents{n}));
  EXPECT_EQ(t.data()[n - 1], 2 * x.value()[Eigen::Index(n) - 1]);
}

INSTANTIATE_TEST_SUITE_P(InPlaceAndOnTheHeap, GradientArraySizes, ::testing::Values(1, 3, 4, 5, 200, 5000));

}  // namespace
