// ops/matmul_transpose_test.cpp -- matmul and transpose: by hand, against central differences, and run-time shape
// errors.
#include <random>

#include <gtest/gtest.h>
#include <Eigen/Core>

#include <fusegrad/fusegrad.hpp>

#include "support/expect_array.hpp"
#include "support/expect_error.hpp"
#include "support/finite_difference.hpp"
#include "support/gradcheck_layers.hpp"
#include "support/typed_cases.hpp"

namespace {

namespace fg = fusegrad;
using fg::Extents;
using fg::test::expect_array_near;

template <class C>
class MatmulTranspose : public ::testing::Test {
 protected:
  std::mt19937 rng{fg::test::typed_seed};
  // A = [[1, 2, 3], [4, 5, 6]], B = [[7, 8], [9, 10], [11, 12]].
  typename C::template var<2, 3> a = C::template var_of<2, 3>({1, 2, 3, 4, 5, 6});
  typename C::template var<3, 2> b = C::template var_of<3, 2>({7, 8, 9, 10, 11, 12});
};
TYPED_TEST_SUITE(MatmulTranspose, fg::test::OpCases, fg::test::CaseNames);

// AB = [[58, 64], [139, 154]]. For f = sum(AB): dA = 1 B^T, each row the row sums of B: [15, 19, 23];
// dB = A^T 1, each row k the column sum of A's column k: [5, 7, 9].
TYPED_TEST(MatmulTranspose, MatmulByHand) {
  const auto ab = fg::matmul(this->a, this->b);
  EXPECT_EQ(ab.extents(), (Extents{2, 2}));
  expect_array_near(fg::eval(ab), {58, 64, 139, 154});
  const auto [value, da, db] = fg::value_and_grad(fg::sum(ab), this->a, this->b);
  EXPECT_EQ(value, 58 + 64 + 139 + 154);
  expect_array_near(da, {15, 19, 23, 15, 19, 23});
  expect_array_near(db, {5, 5, 7, 7, 9, 9});
}

// With upstream U = [[1, 0], [0, 2]]: dA = U B^T = [[7, 9, 11], [16, 20, 24]];
// dB = A^T U = [[1, 8], [2, 10], [3, 12]].
TYPED_TEST(MatmulTranspose, MatmulVjpByHand) {
  using T = typename TypeParam::value_type;
  const fg::test::Array<T> u = fg::test::Array<double>{{1, 0, 0, 2}}.cast<T>();
  const auto [value, da, db] = fg::vjp(fg::matmul(this->a, this->b), u, this->a, this->b);
  expect_array_near(value, {58, 64, 139, 154});
  expect_array_near(da, {7, 9, 11, 16, 20, 24});
  expect_array_near(db, {1, 8, 2, 10, 3, 12});
}

// transpose(A) = [[1, 4], [2, 5], [3, 6]]; its upstream comes back transposed.
TYPED_TEST(MatmulTranspose, TransposeByHand) {
  const auto at = fg::transpose(this->a);
  EXPECT_EQ(at.extents(), (Extents{3, 2}));
  using T = typename TypeParam::value_type;
  const fg::test::Array<T> u = fg::test::Array<double>{{10, 40, 20, 50, 30, 60}}.cast<T>();
  const auto [value, da] = fg::vjp(at, u, this->a);
  expect_array_near(value, {1, 4, 2, 5, 3, 6});
  expect_array_near(da, {10, 20, 30, 40, 50, 60});
}

TYPED_TEST(MatmulTranspose, Matmul) {
  auto a = TypeParam::template make_var<4, 3>(this->rng, -1, 1);
  auto b = TypeParam::template make_var<3, 5>(this->rng, -1, 1);
  fg::test::expect_gradients_match_fd([](auto& x, auto& y) { return fg::matmul(x, y); }, a, b);
  // Operands that are expressions, and a result used in an element-wise parent.
  fg::test::expect_gradients_match_fd([](auto& x, auto& y) { return fg::tanh(fg::matmul(fg::sin(x), y * y)); }, a, b);
  TypeParam::expect_gradcheck([](const auto& x, const auto& y) { return fg::tanh(fg::matmul(fg::sin(x), y * y)); }, a,
                              b);
  // The value against Eigen's own product of the same row-major data.
  using T = typename TypeParam::value_type;
  using RowMajor = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  const RowMajor expected = Eigen::Map<const RowMajor>(a.data(), 4, 3) * Eigen::Map<const RowMajor>(b.data(), 3, 5);
  const auto y = fg::eval(fg::matmul(a, b));
  ASSERT_EQ(y.size(), 20);
  for (Eigen::Index i = 0; i < 20; ++i) EXPECT_NEAR(double(y[i]), double(expected.data()[i]), 1e-5);
}

TYPED_TEST(MatmulTranspose, Transpose) {
  auto a = TypeParam::template make_var<4, 3>(this->rng, -1, 1);
  fg::test::expect_gradients_match_fd([](auto& x) { return fg::transpose(x); }, a);
  // A^T A: the same var on both sides of a product.
  fg::test::expect_gradients_match_fd([](auto& x) { return fg::matmul(fg::transpose(x), x); }, a);
  TypeParam::expect_gradcheck([](const auto& x) { return fg::matmul(fg::transpose(x), x); }, a);
}

// A run-time inner mismatch: (2,3) x (4,2) throws shape_error naming both shapes.
TEST(MatmulErrors, RuntimeInnerMismatchIsAShapeError) {
  fg::Var<double, fg::Shape<fg::dyn, fg::dyn>> a(Extents{2, 3}), b(Extents{4, 2});
  fg::test::expect_error<fg::shape_error>([&] { (void)fg::eval(fg::matmul(a, b)); },
                                          {"fusegrad::matmul", "inner extents differ", "(2, 3)", "(4, 2)"});
  fg::test::expect_error<fg::shape_error>([&] { (void)fg::value_and_grad(fg::sum(fg::matmul(a, b)), a); },
                                          {"(2, 3)", "(4, 2)"});
}

// A static extent beside a dyn one: (2,3) x (dyn,2) compiles, and a wrong run-time extent still throws.
TEST(MatmulErrors, StaticBesideDynIsCheckedAtRunTime) {
  fg::Var<double, fg::Shape<2, 3>> a;
  fg::Var<double, fg::Shape<fg::dyn, 2>> good(Extents{3, 2}), bad(Extents{5, 2});
  EXPECT_EQ(fg::eval(fg::matmul(a, good)).size(), 4);
  fg::test::expect_error<fg::shape_error>([&] { (void)fg::eval(fg::matmul(a, bad)); }, {"(2, 3)", "(5, 2)"});
}

}  // namespace
