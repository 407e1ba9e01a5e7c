// tape/tensor_test.cpp -- Tensor and FloatTensor: factories, handle semantics, accessors, detach, in-place rules.
#include <cmath>
#include <cstddef>
#include <limits>
#include <numbers>
#include <type_traits>
#include <vector>

#include <gtest/gtest.h>
#include <Eigen/Core>

#include <fusegrad/fusegrad.hpp>

#include "support/expect_array.hpp"
#include "support/expect_error.hpp"

namespace {

namespace fg = fusegrad;
using fg::Extents;
using fg::test::expect_array_near;
using fg::test::expect_error;

// Every tensor class is a leaf the bridge records by handle, subclasses included; an
// expression over tensors is not one.
static_assert(fg::detail::is_tensor_v<fg::Tensor> && fg::detail::is_tensor_v<fg::FloatTensor>);
static_assert(fg::detail::is_tensor_v<fg::ScalarTensor> && fg::detail::is_tensor_v<fg::ConstTensor>);
static_assert(!fg::detail::is_tensor_v<decltype(fg::Tensor() * fg::Tensor())> && !fg::detail::is_tensor_v<double>);

template <class T>
class TensorTyped : public ::testing::Test {
 protected:
  using Tensor = fg::BasicTensor<T>;
  // Values written with few binary digits are exact in float too: compare them exactly.
  static constexpr double exact = 0;
  static constexpr double tolerance = std::is_same_v<T, float> ? 1e-6 : 1e-15;
};
// long double too: its 16-byte alignment reaches the storage layout (values follow their storage).
using ScalarsWithLongDouble = ::testing::Types<double, float, long double>;
TYPED_TEST_SUITE(TensorTyped, ScalarsWithLongDouble);

TYPED_TEST(TensorTyped, ZerosOnesFullHaveTheirShapeAndValues) {
  using Tensor = typename TestFixture::Tensor;
  const Tensor z = Tensor::zeros({2, 3});
  EXPECT_EQ(z.shape(), (Extents{2, 3}));
  EXPECT_EQ(z.dim(), 2u);
  EXPECT_EQ(z.numel(), 6u);
  expect_array_near(z.eigen(), {0, 0, 0, 0, 0, 0});
  expect_array_near(Tensor::ones({4}).eigen(), {1, 1, 1, 1});
  const Tensor f = Tensor::full({1, 2, 2}, TypeParam(2.5));
  EXPECT_EQ(f.shape(), (Extents{1, 2, 2}));
  expect_array_near(f.eigen(), {2.5, 2.5, 2.5, 2.5});
  const Tensor s = Tensor::scalar(TypeParam(-0.75));
  EXPECT_EQ(s.shape(), Extents{});
  EXPECT_EQ(s.dim(), 0u);
  EXPECT_EQ(s.item(), TypeParam(-0.75));
}

TYPED_TEST(TensorTyped, ArangeCountsFromStartBelowStop) {
  using Tensor = typename TestFixture::Tensor;
  const Tensor a = Tensor::arange(5);
  EXPECT_EQ(a.shape(), Extents{5});
  expect_array_near(a.eigen(), {0, 1, 2, 3, 4});
  expect_array_near(Tensor::arange(1, 2, 0.25).eigen(), {1, 1.25, 1.5, 1.75});
  expect_array_near(Tensor::arange(3, 0, -1).eigen(), {3, 2, 1});
  EXPECT_EQ(Tensor::arange(2, 2).numel(), 0u);  // start == stop: empty
  expect_error<fg::value_error>([] { (void)Tensor::arange(0, 5, 0); }, {"arange", "step"});
  expect_error<fg::value_error>([] { (void)Tensor::arange(0, 5, -1); }, {"arange", "step", "stop 5, step -1"});
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  expect_error<fg::value_error>([&] { (void)Tensor::arange(0, nan); }, {"arange", "finite"});
  expect_error<fg::value_error>([&] { (void)Tensor::arange(0, nan, 1e-9); }, {"arange", "finite", "step 1e-09"});
  expect_error<fg::value_error>([&] { (void)Tensor::arange(0, inf); }, {"arange", "finite"});
  expect_error<fg::value_error>([&] { (void)Tensor::arange(0, 1e20); },
                                {"arange", "1e+20 values", "more than a tensor holds", "larger step"});
}

// A shape whose element count overflows (or passes what any memory holds) is refused, not wrapped around to a small
// buffer.
TYPED_TEST(TensorTyped, AShapeTooLargeForMemoryIsRefused) {
  using Tensor = typename TestFixture::Tensor;
  const std::size_t big = std::size_t(1) << 32;
  expect_error<fg::shape_error>([&] { (void)Tensor::zeros({big, big}); }, {"(4294967296, 4294967296)", "2^59"});
  expect_error<fg::shape_error>([&] { (void)Tensor::zeros({std::size_t(1) << 61}); }, {"2^59"});
  EXPECT_EQ(Tensor::zeros({big, big, 0}).numel(), 0u);  // no elements, however large the other extents
}

// linspace includes both ends, and its last value is `end` exactly (counted back from it, as PyTorch does).
TYPED_TEST(TensorTyped, LinspaceSpansBothEnds) {
  using Tensor = typename TestFixture::Tensor;
  const Tensor l = Tensor::linspace(0, 1, 5);
  EXPECT_EQ(l.shape(), Extents{5});
  expect_array_near(l.eigen(), {0, 0.25, 0.5, 0.75, 1});
  const Tensor tenths = Tensor::linspace(-1, 0.3, 14);  // steps of 0.1
  EXPECT_EQ(tenths.eigen()[0], TypeParam(-1));
  EXPECT_EQ(tenths.eigen()[13], TypeParam(0.3));
  EXPECT_NEAR(double(tenths.eigen()[7]), -0.3, TestFixture::tolerance);
  expect_array_near(Tensor::linspace(2, 7, 1).eigen(), {2});
  EXPECT_EQ(Tensor::linspace(0, 1, 0).numel(), 0u);
  expect_error<fg::value_error>([] { (void)Tensor::linspace(0, 1, std::size_t(1) << 60); },
                                {"fusegrad::Tensor::linspace", "1152921504606846976 steps", "ask for fewer"});
  const int negative = -1;  // made unsigned on its way in
  expect_error<fg::value_error>([&] { (void)Tensor::linspace(0, 1, static_cast<std::size_t>(negative)); },
                                {"fusegrad::Tensor::linspace", "-1 as a signed number", "0 or more"});
  // An endpoint past the scalar type's range is refused, as in PyTorch (torch.linspace(1e39, 0, 3,
  // dtype=torch.float32) raises), not turned into an infinity; for double it is a value like any other.
  if constexpr (std::is_same_v<TypeParam, float>) {
    expect_error<fg::value_error>([] { (void)Tensor::linspace(1e39, 0, 3); },
                                  {"fusegrad::Tensor::linspace", "1e+39 cannot be converted to float", "double"});
    expect_error<fg::value_error>([] { (void)Tensor::linspace(0, -1e39, 3); }, {"-1e+39 cannot be converted"});
  } else {
    expect_array_near(Tensor::linspace(1e39, 0, 3).eigen(), {1e39, 5e38, 0}, 1e-15 * 1e39);
  }
}

// zeros_like, ones_like, full_like: the other tensor's shape, new values, no gradient.
TYPED_TEST(TensorTyped, LikeFactoriesTakeTheShapeAlone) {
  using Tensor = typename TestFixture::Tensor;
  Tensor x = Tensor::full({2, 3}, TypeParam(7)).requires_grad_();
  const Tensor z = Tensor::zeros_like(x), o = Tensor::ones_like(x), f = Tensor::full_like(x, TypeParam(-2));
  for (const Tensor* t : {&z, &o, &f}) {
    EXPECT_EQ(t->shape(), (Extents{2, 3}));
    EXPECT_FALSE(t->requires_grad());
    EXPECT_NE(t->data(), x.data());
  }
  expect_array_near(z.eigen(), {0, 0, 0, 0, 0, 0});
  expect_array_near(o.eigen(), {1, 1, 1, 1, 1, 1});
  expect_array_near(f.eigen(), {-2, -2, -2, -2, -2, -2});
}

TYPED_TEST(TensorTyped, FromEigenVectorIsRankOne) {
  using Tensor = typename TestFixture::Tensor;
  Eigen::ArrayXd column(3);
  column << 1.5, -2, 3;
  const Tensor a = Tensor::from(column);
  EXPECT_EQ(a.shape(), Extents{3});
  expect_array_near(a.eigen(), {1.5, -2, 3});
  Eigen::RowVectorXd row(2);
  row << 4, 5;
  const Tensor b = Tensor::from(row);
  EXPECT_EQ(b.shape(), Extents{2});
  expect_array_near(b.eigen(), {4, 5});
}

TYPED_TEST(TensorTyped, FromEigenMatrixIsRankTwoRowMajor) {
  using Tensor = typename TestFixture::Tensor;
  Eigen::MatrixXd m(2, 3);  // column-major in Eigen; the tensor stores it row-major
  m << 1, 2, 3, 4, 5, 6;
  const Tensor t = Tensor::from(m);
  EXPECT_EQ(t.shape(), (Extents{2, 3}));
  expect_array_near(t.eigen(), {1, 2, 3, 4, 5, 6});
  const auto back = t.matrix();
  ASSERT_EQ(back.rows(), 2);
  ASSERT_EQ(back.cols(), 3);
  EXPECT_TRUE(back.template cast<double>().isApprox(m));
  EXPECT_EQ(back(1, 0), TypeParam(4));
  expect_error<fg::shape_error>([&] { (void)Tensor::ones({6}).matrix(); }, {"matrix()", "rank 2", "(6)"});
}

TYPED_TEST(TensorTyped, FromValuesAndExtentsChecksTheCount) {
  using Tensor = typename TestFixture::Tensor;
  const std::vector<TypeParam> values{1, 2, 3, 4, 5, 6};
  const Tensor t = Tensor::from(values, {3, 2});
  EXPECT_EQ(t.shape(), (Extents{3, 2}));
  expect_array_near(t.eigen(), {1, 2, 3, 4, 5, 6});
  EXPECT_EQ(t.matrix()(2, 1), TypeParam(6));
  const Tensor s = Tensor::from({TypeParam(7)}, Extents{});
  EXPECT_EQ(s.item(), TypeParam(7));
  expect_error<fg::shape_error>([&] { (void)Tensor::from(values, {2, 2}); }, {"6 values", "(2, 2)", "4"});
  expect_error<fg::shape_error>([] { (void)Tensor::from({TypeParam(1), TypeParam(2)}, {3}); }, {"2 values", "(3)"});
  Eigen::ArrayXd five = Eigen::ArrayXd::Zero(5);
  expect_error<fg::shape_error>([&] { (void)Tensor::from(five, {2, 3}); }, {"5 values", "(2, 3)"});
  const Tensor reshaped = Tensor::from(Eigen::ArrayXd::LinSpaced(6, 0, 5), {2, 3});
  EXPECT_EQ(reshaped.matrix()(1, 0), TypeParam(3));
  // With extents given, values are read in the object's storage order: row by row from a row-major
  // matrix, column by column from a column-major one.
  Eigen::Matrix<double, 2, 3, Eigen::RowMajor> by_rows;
  by_rows << 1, 2, 3, 4, 5, 6;
  expect_array_near(Tensor::from(by_rows, {2, 3}).eigen(), {1, 2, 3, 4, 5, 6});
  Eigen::Matrix<double, 2, 3> by_columns;
  by_columns << 1, 2, 3, 4, 5, 6;
  expect_array_near(Tensor::from(by_columns, {6}).eigen(), {1, 4, 2, 5, 3, 6});
}

TYPED_TEST(TensorTyped, FromRowsInBracesIsAMatrix) {
  using Tensor = typename TestFixture::Tensor;
  const Tensor t = Tensor::from({{1, 2, 3}, {4, 5.5, 6}});  // torch.tensor([[1, 2, 3], [4, 5.5, 6]])
  EXPECT_EQ(t.shape(), (Extents{2, 3}));
  expect_array_near(t.eigen(), {1, 2, 3, 4, 5.5, 6});
  EXPECT_EQ(t.matrix()(1, 1), TypeParam(5.5));
  const Tensor row = Tensor::from({{7, 8}});
  EXPECT_EQ(row.shape(), (Extents{1, 2}));
  expect_array_near(row.eigen(), {7, 8});
  const Tensor column = Tensor::from({{7}, {8}, {9}});
  EXPECT_EQ(column.shape(), (Extents{3, 1}));
  expect_array_near(column.eigen(), {7, 8, 9});
  expect_error<fg::shape_error>([] { (void)Tensor::from({{1, 2}, {3}}); }, {"rows of 2 and 1 values"});
  const Tensor one = Tensor::from({{7}});  // a 1 x 1 matrix, as torch.tensor([[7]]), not a vector
  EXPECT_EQ(one.shape(), (Extents{1, 1}));
}

TYPED_TEST(TensorTyped, FromValuesInBracesIsAVector) {
  using Tensor = typename TestFixture::Tensor;
  const Tensor t = Tensor::from({1, 2.5, -3});  // torch.tensor([1, 2.5, -3])
  EXPECT_EQ(t.shape(), (Extents{3}));
  expect_array_near(t.eigen(), {1, 2.5, -3});
  const Tensor single = Tensor::from({4});
  EXPECT_EQ(single.shape(), (Extents{1}));
  expect_array_near(single.eigen(), {4});
  const TypeParam values[] = {5, 6};  // a C array is copied
  const Tensor copied = Tensor::from(values);
  EXPECT_EQ(copied.shape(), (Extents{2}));
  expect_array_near(copied.eigen(), {5, 6});
}

TYPED_TEST(TensorTyped, FromBlobSharesTheCallersMemory) {
  using Tensor = typename TestFixture::Tensor;
  std::vector<TypeParam> buffer{1, 2, 3, 4};
  Tensor v = Tensor::from_blob(buffer.data(), {2, 2});
  EXPECT_EQ(v.shape(), (Extents{2, 2}));
  EXPECT_EQ(v.data(), buffer.data());
  buffer[0] = 10;  // the caller writes: the tensor sees it
  EXPECT_EQ(v.matrix()(0, 0), TypeParam(10));
  v.mutable_eigen()[3] = 40;  // the tensor writes: the caller sees it
  EXPECT_EQ(buffer[3], TypeParam(40));
  // An expression over borrowed memory reads it as it is now.
  const Tensor doubled = v * TypeParam(2);
  expect_array_near(doubled.eigen(), {20, 4, 6, 80});
  // No memory behind a shape that holds values: refused when made, not a crash at the first read.
  expect_error<fg::value_error>([] { (void)Tensor::from_blob(nullptr, {2}); },
                                {"fusegrad::Tensor::from_blob", "null pointer", "(2)"});
  EXPECT_EQ(Tensor::from_blob(nullptr, {0}).numel(), 0u);
}

// A sum that would defer its value computes it at recording when it reads caller memory, which its owner may write
// without the tensor knowing: the value is the one at recording, as PyTorch's (torch.from_numpy). Its gradient is
// still one pass.
TYPED_TEST(TensorTyped, ASumOverCallerMemoryIsTheValueAtRecording) {
  using Tensor = typename TestFixture::Tensor;
  std::vector<TypeParam> buffer{1, 2, 3};
  const Tensor b = Tensor::from_blob(buffer.data(), {3});
  const Tensor w = Tensor::from({TypeParam(1), TypeParam(1), TypeParam(1)}, {3}).requires_grad_();
  const Tensor s = fg::sum(b * w);
  buffer[0] = 100;
  EXPECT_EQ(s.item(), TypeParam(6));
  s.backward();
  expect_array_near(w.grad().eigen(), {100, 2, 3});  // the VJP reads b's values when it runs, as PyTorch's saved b
}

TYPED_TEST(TensorTyped, RandAndRandnAreReproducibleForEqualSeeds) {
  using Tensor = typename TestFixture::Tensor;
  const Tensor a = Tensor::rand({1000}, 7), b = Tensor::rand({1000}, 7), c = Tensor::rand({1000}, 8);
  EXPECT_TRUE((a.eigen() == b.eigen()).all());
  EXPECT_GT((a.eigen() != c.eigen()).count(), 990);
  EXPECT_GE(a.eigen().minCoeff(), TypeParam(0));
  EXPECT_LT(a.eigen().maxCoeff(), TypeParam(1));
  // Uniform on [0, 1): mean 1/2, standard error of the mean 1/sqrt(12 * 1000) ~ 0.009.
  EXPECT_NEAR(double(a.eigen().template cast<double>().mean()), 0.5, 0.05);

  const Tensor n1 = Tensor::randn({2, 5}, 42), n2 = Tensor::randn({2, 5}, 42), n3 = Tensor::randn({2, 5}, 43);
  EXPECT_EQ(n1.shape(), (Extents{2, 5}));
  EXPECT_TRUE((n1.eigen() == n2.eigen()).all());
  EXPECT_FALSE((n1.eigen() == n3.eigen()).all());
}

// The generator is specified, not the standard library's: SplitMix64's published outputs for seed 0
// (0xe220a8397b1dcdaf, 0x6e789e6aa1b965f4), whose top 53 bits (24 for float) are the uniforms, and the
// Box-Muller pair made from the 53-bit ones (with this platform's log, sqrt, sin and cos).
TYPED_TEST(TensorTyped, RandAndRandnFollowTheirSpecifiedGenerator) {
  using Tensor = typename TestFixture::Tensor;
  const double u0 = double(0xe220a8397b1dcdafULL >> 11) * 0x1.0p-53;
  const double u1 = double(0x6e789e6aa1b965f4ULL >> 11) * 0x1.0p-53;
  const Tensor u = Tensor::rand({2}, 0);
  if constexpr (std::is_same_v<TypeParam, float>) {
    EXPECT_EQ(u.eigen()[0], float(0xe220a8397b1dcdafULL >> 40) * 0x1.0p-24f);
    EXPECT_EQ(u.eigen()[1], float(0x6e789e6aa1b965f4ULL >> 40) * 0x1.0p-24f);
  } else {
    EXPECT_EQ(u.eigen()[0], TypeParam(u0));
    EXPECT_EQ(u.eigen()[1], TypeParam(u1));
  }
  const double radius = std::sqrt(-2.0 * std::log(1.0 - u0));
  const double angle = 2.0 * std::numbers::pi * u1;
  const Tensor n = Tensor::randn({2}, 0);
  EXPECT_EQ(n.eigen()[0], TypeParam(radius * std::cos(angle)));
  EXPECT_EQ(n.eigen()[1], TypeParam(radius * std::sin(angle)));
}

// Seed 0x8c68a4607afd718f makes SplitMix64's first output 0xffffffc123456789: its top 53 bits are
// 1 - 2^-26 + ..., which float would round to 1. The uniform keeps T's significand bits instead.
TYPED_TEST(TensorTyped, RandStaysBelowOneWhereRoundingWouldReachIt) {
  using Tensor = typename TestFixture::Tensor;
  const TypeParam u = Tensor::rand({1}, 0x8c68a4607afd718fULL).eigen()[0];
  EXPECT_LT(u, TypeParam(1));
  EXPECT_GT(u, TypeParam(1) - TypeParam(1e-7));
}

TYPED_TEST(TensorTyped, RandnHasMeanZeroAndStandardDeviationOne) {
  using Tensor = typename TestFixture::Tensor;
  const Eigen::ArrayXd v = Tensor::randn({100, 100}, 2024).eigen().template cast<double>();
  ASSERT_EQ(v.size(), 10000);
  const double mean = v.mean();
  const double sd = std::sqrt((v - mean).square().sum() / double(v.size() - 1));
  // Standard errors: 0.01 for the mean, ~0.007 for the standard deviation; allow 5 of them.
  EXPECT_NEAR(mean, 0.0, 0.05);
  EXPECT_NEAR(sd, 1.0, 0.035);
  // Roughly 68.3% within one standard deviation (standard error ~0.5%).
  EXPECT_NEAR(double((v.abs() < 1.0).count()) / 10000.0, 0.6827, 0.025);
}

TYPED_TEST(TensorTyped, CopiesShareValuesAndGradient) {
  using Tensor = typename TestFixture::Tensor;
  Tensor a = Tensor::from({TypeParam(1), TypeParam(2), TypeParam(3)}, {3});
  Tensor b = a;  // a handle: no copy of the values
  EXPECT_EQ(a.data(), b.data());
  b.mutable_eigen()[0] = 5;
  EXPECT_EQ(a.eigen()[0], TypeParam(5));
  b.requires_grad_();
  EXPECT_TRUE(a.requires_grad());
  const Tensor loss = fg::sum(a * a);  // d/da = 2a = (10, 4, 6)
  loss.backward();
  ASSERT_TRUE(b.grad().defined());
  expect_array_near(b.grad().eigen(), {10, 4, 6});
  a.zero_grad();
  EXPECT_FALSE(b.grad().defined());
}

TYPED_TEST(TensorTyped, ItemNeedsExactlyOneElement) {
  using Tensor = typename TestFixture::Tensor;
  EXPECT_EQ(Tensor::full({1, 1}, TypeParam(3)).item(), TypeParam(3));
  EXPECT_EQ(Tensor::full({1}, TypeParam(4)).item(), TypeParam(4));
  expect_error<fg::value_error>([] { (void)Tensor::ones({2, 3}).item(); }, {"item()", "(2, 3)", "6 elements"});
  expect_error<fg::value_error>([] { (void)Tensor::zeros({0}).item(); }, {"item()", "(0)"});
}

TYPED_TEST(TensorTyped, UndefinedTensorSaysSo) {
  using Tensor = typename TestFixture::Tensor;
  const Tensor undefined;
  EXPECT_FALSE(undefined.defined());
  expect_error<fg::value_error>([&] { (void)undefined.shape(); }, {"undefined"});
  const Tensor p = Tensor::ones({2}).requires_grad_();
  EXPECT_FALSE(p.grad().defined());  // no backward yet
  expect_error<fg::value_error>([&] { (void)p.grad().item(); }, {"undefined", "grad()"});
  expect_error<fg::value_error>([&] { const Tensor t = p * undefined; }, {"undefined"});
  // A tensor that is not a leaf keeps no gradient unless retain_grad() is called before backward.
  const Tensor h = p * TypeParam(2);
  const Tensor total = fg::sum(h);
  total.backward();
  EXPECT_FALSE(h.grad().defined());
  expect_error<fg::value_error>([&] { (void)h.grad().item(); }, {"undefined", "not a leaf", "retain_grad()"});
}

TYPED_TEST(TensorTyped, DetachSharesValuesButTakesNoGradient) {
  using Tensor = typename TestFixture::Tensor;
  Tensor x = Tensor::from({TypeParam(1), TypeParam(2), TypeParam(3)}, {3}).requires_grad_();
  const Tensor y = x * x;  // recorded
  ASSERT_FALSE(y.is_leaf());
  Tensor d = y.detach();
  EXPECT_TRUE(d.is_leaf());
  EXPECT_FALSE(d.requires_grad());
  EXPECT_EQ(d.grad_fn_name(), "");
  EXPECT_EQ(d.data(), y.data());  // shared, not copied
  expect_array_near(d.eigen(), {1, 4, 9});
  // detach() cuts the graph: sum(detach(x^2) * x) has gradient x^2, not 3x^2.
  const Tensor f = fg::sum(d * x);
  f.backward();
  expect_array_near(x.grad().eigen(), {1, 4, 9});
  EXPECT_FALSE(d.grad().defined());
  // Writing through the detached handle changes the shared values (it needs no grad).
  d.mutable_eigen()[0] = 7;
  EXPECT_EQ(y.eigen()[0], TypeParam(7));
}

TYPED_TEST(TensorTyped, DetachOfADeferredSumHasItsValue) {
  using Tensor = typename TestFixture::Tensor;
  const Tensor x = Tensor::from({TypeParam(1), TypeParam(2), TypeParam(3)}, {3}).requires_grad_();
  const Tensor s = fg::sum(x * x);  // its value is computed when first needed
  const Tensor d = s.detach();
  EXPECT_EQ(d.item(), TypeParam(14));
  EXPECT_EQ(s.item(), TypeParam(14));
}

TYPED_TEST(TensorTyped, BroadcastMismatchNamesBothShapes) {
  using Tensor = typename TestFixture::Tensor;
  const Tensor a = Tensor::ones({3}).requires_grad_(), b = Tensor::ones({4});
  expect_error<fg::shape_error>([&] { const Tensor t = a * b; }, {"(3)", "(4)", "broadcast"});
  expect_error<fg::shape_error>([&] { const Tensor t = fg::taped(fg::sin(a) + b); }, {"(3)", "(4)"});
  const Tensor m = Tensor::ones({2, 3});
  expect_error<fg::shape_error>([&] { const Tensor t = m + Tensor::ones({2}); }, {"(2, 3)", "(2)"});
  expect_error<fg::shape_error>([&] { const Tensor t = fg::matmul(m, m); }, {"matmul", "(2, 3) x (2, 3)"});
}

TYPED_TEST(TensorTyped, RequiresGradCanOnlyChangeOnLeaves) {
  using Tensor = typename TestFixture::Tensor;
  Tensor x = Tensor::ones({2});
  EXPECT_FALSE(x.requires_grad());
  EXPECT_TRUE(x.requires_grad_().requires_grad());
  EXPECT_FALSE(x.requires_grad_(false).requires_grad());
  x.requires_grad_();
  Tensor y = x + TypeParam(1);
  EXPECT_TRUE(y.requires_grad());
  expect_error<fg::graph_error>([&] { y.requires_grad_(false); }, {"requires_grad_(false)", "leaves", "detach()"});
  EXPECT_TRUE(y.requires_grad_().requires_grad());  // as PyTorch: a computed tensor requires grad already
  EXPECT_FALSE(y.is_leaf());
}

TYPED_TEST(TensorTyped, InPlaceWriteOnAParameterNeedsNoGradGuard) {
  using Tensor = typename TestFixture::Tensor;
  Tensor p = Tensor::from({TypeParam(1), TypeParam(2)}, {2}).requires_grad_();
  const Tensor step = Tensor::from({TypeParam(0.5), TypeParam(1)}, {2});
  const auto parts = {std::string_view("in place"), std::string_view("NoGradGuard")};
  expect_error<fg::graph_error>([&] { (void)p.mutable_eigen(); }, parts);
  expect_error<fg::graph_error>([&] { p.sub_(step, TypeParam(2)); }, parts);
  expect_error<fg::graph_error>([&] { p.add_(step); }, parts);
  expect_error<fg::graph_error>([&] { p.mul_(TypeParam(3)); }, parts);
  expect_error<fg::graph_error>([&] { p.fill_(TypeParam(0)); }, parts);
  expect_array_near(p.eigen(), {1, 2});  // nothing was written
  {
    fg::NoGradGuard guard;
    p.sub_(step, TypeParam(2));  // (1, 2) - 2 (0.5, 1) = (0, 0)
    expect_array_near(p.eigen(), {0, 0});
    p.add_(step);          // (0.5, 1)
    p.mul_(TypeParam(4));  // (2, 4)
    expect_array_near(p.eigen(), {2, 4});
    p.mutable_eigen()[1] = -1;
    expect_array_near(p.eigen(), {2, -1});
    p.fill_(TypeParam(0.25));
    expect_array_near(p.eigen(), {0.25, 0.25});
  }
  EXPECT_TRUE(p.requires_grad());
  // A tensor that takes no gradient may be written any time.
  Tensor data = Tensor::zeros({2});
  data.add_(step);
  expect_array_near(data.eigen(), {0.5, 1});
  expect_error<fg::shape_error>([&] { data.sub_(Tensor::ones({3})); }, {"sub_", "(2)", "(3)"});
}

// add_ and sub_ broadcast their operand to the tensor's shape, which stays as it is (PyTorch's rule); an operand that
// does not broadcast to it is refused and nothing is written.
TYPED_TEST(TensorTyped, InPlaceUpdatesBroadcastTheirOperand) {
  using Tensor = typename TestFixture::Tensor;
  const auto T = [](double v) { return TypeParam(v); };
  Tensor m = Tensor::from({T(1), T(2), T(3), T(4), T(5), T(6)}, {2, 3});
  m.add_(Tensor::from({T(10), T(20), T(30)}, {3}));  // each row
  expect_array_near(m.eigen(), {11, 22, 33, 14, 25, 36});
  m.sub_(Tensor::from({T(1), T(2)}, {2, 1}), T(2));  // each column: rows minus 2 and 4
  expect_array_near(m.eigen(), {9, 20, 31, 10, 21, 32});
  m.add_(Tensor::scalar(T(0.5)));
  expect_array_near(m.eigen(), {9.5, 20.5, 31.5, 10.5, 21.5, 32.5});
  m.sub_(Tensor::from({T(1)}, {1, 1}));
  expect_array_near(m.eigen(), {8.5, 19.5, 30.5, 9.5, 20.5, 31.5});
  expect_error<fg::shape_error>([&] { m.add_(Tensor::ones({2})); }, {"add_()", "(2)", "(2, 3)", "does not broadcast"});
  expect_error<fg::shape_error>([&] { m.sub_(Tensor::ones({3, 1})); }, {"sub_()", "(3, 1)", "(2, 3)"});
  expect_error<fg::shape_error>([&] { m.add_(Tensor::ones({1, 2, 3})); }, {"add_()", "(1, 2, 3)", "keeps the"});
  Tensor v = Tensor::from({T(1), T(2)}, {2});
  expect_error<fg::shape_error>([&] { v.add_(Tensor::ones({2, 2})); }, {"add_()", "(2, 2)", "(2)"});
  expect_array_near(m.eigen(), {8.5, 19.5, 30.5, 9.5, 20.5, 31.5});
  expect_array_near(v.eigen(), {1, 2});
  // The grad-mode rules hold for a broadcast operand too: one that requires grad is refused.
  const Tensor w = Tensor::from({T(1), T(1), T(1)}, {3}).requires_grad_();
  expect_error<fg::graph_error>([&] { m.add_(w); }, {"add_()", "requires grad"});
  expect_array_near(m.eigen(), {8.5, 19.5, 30.5, 9.5, 20.5, 31.5});
}

// The tape records no in-place write: on a computed tensor that requires grad, or adding in a tensor that does, grad
// mode refuses it rather than let backward differentiate the old values (PyTorch records it instead).
TYPED_TEST(TensorTyped, InPlaceWriteOnAComputedTensorThatRequiresGradIsRefused) {
  using Tensor = typename TestFixture::Tensor;
  Tensor x = Tensor::from({TypeParam(1), TypeParam(2), TypeParam(3)}, {3}).requires_grad_();
  Tensor h = x.clone();
  const auto parts = {std::string_view("in place"), std::string_view("h = h * 2.0")};
  expect_error<fg::graph_error>([&] { h.mul_(TypeParam(2)); }, parts);
  expect_error<fg::graph_error>([&] { (void)h.mutable_eigen(); }, parts);
  expect_error<fg::graph_error>([&] { h.fill_(TypeParam(0)); }, parts);
  expect_error<fg::graph_error>([&] { h.add_(Tensor::ones({3})); }, parts);
  expect_array_near(h.eigen(), {1, 2, 3});  // nothing was written
  // Written out of place, the gradient is d/dx sum((2x)^2) = 8x.
  h = h * TypeParam(2);
  Tensor(fg::sum(h * h)).backward();
  expect_array_near(x.grad().eigen(), {8, 16, 24});

  // A tensor that requires grad added in place into one that does not: its gradient would be lost.
  Tensor w = Tensor::from({TypeParam(1), TypeParam(2)}, {2}).requires_grad_();
  Tensor c = Tensor::from({TypeParam(3), TypeParam(4)}, {2});
  expect_error<fg::graph_error>([&] { c.add_(w); }, {"add_()", "c = c + w"});
  expect_error<fg::graph_error>([&] { c.sub_(w); }, {"sub_()", "requires grad"});
  expect_array_near(c.eigen(), {3, 4});
  {
    fg::NoGradGuard guard;  // an update, not a computation: allowed
    c.add_(w);
    h.mul_(TypeParam(0.5));
  }
  expect_array_near(c.eigen(), {4, 6});
  expect_array_near(h.eigen(), {1, 2, 3});
}

// requires_grad_(false) after a graph was recorded: backward no longer adds to the tensor's gradient, as in PyTorch.
TYPED_TEST(TensorTyped, ALeafThatStopsRequiringGradTakesNoGradient) {
  using Tensor = typename TestFixture::Tensor;
  Tensor x = Tensor::from({TypeParam(1), TypeParam(2)}, {2}).requires_grad_();
  Tensor y = Tensor::from({TypeParam(3), TypeParam(5)}, {2}).requires_grad_();
  const Tensor fused = fg::sum(x * y);
  const Tensor taped = fg::taped(fg::sum(x * x + y));
  x.requires_grad_(false);
  fused.backward();
  taped.backward();
  EXPECT_FALSE(x.grad().defined());
  expect_array_near(y.grad().eigen(), {2, 3});  // x from the fused node, plus 1 from the taped one
}

TYPED_TEST(TensorTyped, ComputedTensorsTakeTheirScalarType) {
  using Tensor = typename TestFixture::Tensor;
  static_assert(std::is_same_v<typename Tensor::value_type, TypeParam>);
  const Tensor w = Tensor::scalar(TypeParam(3)).requires_grad_();
  const Tensor x = Tensor::arange(1, 4);            // (1, 2, 3)
  const Tensor loss = fg::mean(fg::square(w * x));  // mean(9 x^2) = 9 * 14 / 3 = 42
  EXPECT_NEAR(double(loss.item()), 42.0, 42 * TestFixture::tolerance);
  loss.backward();  // dL/dw = 2 w mean(x^2) = 2 * 3 * 14 / 3 = 28
  EXPECT_NEAR(double(w.grad().item()), 28.0, 28 * TestFixture::tolerance);
}

// Tensor and FloatTensor are the two instantiations users name.
TEST(Tensor, AliasesNameDoubleAndFloat) {
  static_assert(std::is_same_v<fg::Tensor, fg::BasicTensor<double>>);
  static_assert(std::is_same_v<fg::FloatTensor, fg::BasicTensor<float>>);
  const fg::FloatTensor f = fg::FloatTensor::from(Eigen::ArrayXd::Constant(2, 0.1));
  EXPECT_EQ(f.eigen()[0], 0.1f);  // converted once to float
}

}  // namespace
