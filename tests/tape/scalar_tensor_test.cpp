// tape/scalar_tensor_test.cpp -- ScalarTensor: a Tensor whose rank 0 is static, so fused nodes hoist what depends on
// it.
#include <cmath>
#include <cstddef>
#include <string>
#include <type_traits>

#include <gtest/gtest.h>
#include <Eigen/Core>

#include <fusegrad/fusegrad.hpp>

#include "support/expect_error.hpp"
#include "tape/bridge_cases.hpp"

namespace {

namespace fg = fusegrad;
using fg::Extents;
using fg::test::b2;
using fg::test::b3;
using fg::test::expect_error;

template <class T>
class ScalarTensorBridge : public fg::test::Bridge<T> {};
using Scalars = ::testing::Types<double, float>;
TYPED_TEST_SUITE(ScalarTensorBridge, Scalars);

static_assert(std::is_same_v<fg::ScalarTensor, fg::BasicScalarTensor<double>>);
static_assert(std::is_same_v<fg::FloatScalarTensor, fg::BasicScalarTensor<float>>);
static_assert(std::is_same_v<fg::ScalarTensor::static_shape, fg::Shape<>>);
static_assert(std::is_same_v<decltype(fg::ScalarTensor(1.0) * fg::Tensor())::static_shape, fg::AnyShape>);
static_assert(std::is_same_v<decltype(fg::log(fg::ScalarTensor(1.0)))::static_shape, fg::Shape<>>);

// B3 with ScalarTensor parameters: log(sigma) and 1/sigma are hoisted out of the loop; the
// numbers must be those of the static layer (scalar Vars) and of plain Tensor parameters, and the derivatives by hand.
TYPED_TEST(ScalarTensorBridge, B3MatchesStaticVarsAndPlainTensors) {
  using T = TypeParam;
  using Tensor = typename TestFixture::Tensor;
  using Scalar = fg::BasicScalarTensor<T>;
  const Eigen::ArrayXd ys = TestFixture::values(1000, -1, 3, 21);
  fg::Var<T, fg::Shape<>> muv(T(0.75)), sigmav(T(1.5));
  const fg::Const<T, fg::Shape<fg::dyn>> yv(ys.cast<T>().eval());
  const auto [value, dmu, dsigma] = fg::value_and_grad(b3(yv, muv, sigmav), muv, sigmav);
  const auto by_hand = fg::test::b3_by_hand(ys, 0.75, 1.5);
  EXPECT_NEAR(double(value), by_hand.value, TestFixture::closed * std::max(1.0, std::abs(by_hand.value)));
  EXPECT_NEAR(double(dmu), by_hand.dmu, TestFixture::closed * std::max(1.0, std::abs(by_hand.dmu)) * 10);
  EXPECT_NEAR(double(dsigma), by_hand.dsigma, TestFixture::closed * std::max(1.0, std::abs(by_hand.dsigma)) * 10);

  const Tensor y = Tensor::from(ys, {1000});
  Scalar mu(T(0.75)), sigma(T(1.5));
  mu.requires_grad_();
  sigma.requires_grad_();
  const Tensor fused = b3(y, mu, sigma);
  fused.backward();
  TestFixture::expect_value(fused, double(value), TestFixture::identical, "fused value");
  EXPECT_NEAR(double(mu.grad().item()), double(dmu), TestFixture::identical * std::max(1.0, std::abs(double(dmu))));
  EXPECT_NEAR(double(sigma.grad().item()), double(dsigma),
              TestFixture::identical * std::max(1.0, std::abs(double(dsigma))));

  Tensor mu_t = TestFixture::param(0.75), sigma_t = TestFixture::param(1.5);
  const Tensor plain = b3(y, mu_t, sigma_t);
  plain.backward();
  TestFixture::expect_value(plain, double(fused.item()), TestFixture::same, "plain tensors");
  EXPECT_NEAR(double(mu_t.grad().item()), double(mu.grad().item()), TestFixture::same * std::abs(double(dmu)));
  EXPECT_NEAR(double(sigma_t.grad().item()), double(sigma.grad().item()), TestFixture::same * std::abs(double(dsigma)));

  mu.zero_grad();
  sigma.zero_grad();
  const Tensor taped = fg::taped(b3(y, mu, sigma));
  taped.backward();
  TestFixture::expect_value(taped, double(value), TestFixture::same, "taped value");
  EXPECT_NEAR(double(mu.grad().item()), double(dmu), TestFixture::same * std::max(1.0, std::abs(double(dmu))));
  EXPECT_NEAR(double(sigma.grad().item()), double(dsigma), TestFixture::same * std::max(1.0, std::abs(double(dsigma))));
}

// B2: both parameters' gradients, with a closed form: d/db = 2 mean(r), d/dw = 2 mean(r x).
TYPED_TEST(ScalarTensorBridge, B2ClosedForm) {
  using T = TypeParam;
  using Tensor = typename TestFixture::Tensor;
  const Eigen::ArrayXd xs = TestFixture::values(500, 0, 1, 22), ys = TestFixture::values(500, 1, 3, 23);
  fg::BasicScalarTensor<T> b(T(0.25)), w(T(1.5));
  b.requires_grad_();
  w.requires_grad_();
  const Tensor loss = b2(b, w, Tensor::from(xs, {500}), Tensor::from(ys, {500}));
  loss.backward();
  const Eigen::ArrayXd r = double(T(0.25)) + double(T(1.5)) * xs - ys;
  TestFixture::expect_value(loss, r.square().mean(), TestFixture::closed, "loss");
  EXPECT_NEAR(double(b.grad().item()), 2 * r.mean(), TestFixture::closed * 4);
  EXPECT_NEAR(double(w.grad().item()), 2 * (r * xs).mean(), TestFixture::closed * 4);
}

// The scalars' gradients are summed in per-lane accumulators across the blocks of the loop
// and folded after it; sizes around the block length (4, 8 or 16, by the SIMD registers) cover one
// partial block, whole blocks, and whole blocks plus a partial one. Each way a scalar can be read must agree with
// the closed form: a scalar Var (static), a ScalarTensor (static rank 0 in a tensor) and a
// plain Tensor that holds one value (found out at run time), fused and taped.
TYPED_TEST(ScalarTensorBridge, B2ClosedFormAtEveryBlockBoundary) {
  using T = TypeParam;
  using Tensor = typename TestFixture::Tensor;
  constexpr Eigen::Index block = fg::detail::block_length;
  for (const Eigen::Index n : {Eigen::Index(1), Eigen::Index(2), block - 1, block, block + 1, 2 * block - 1, 2 * block,
                               2 * block + 1, 3 * block, Eigen::Index(100), Eigen::Index(1000)}) {
    SCOPED_TRACE("N = " + std::to_string(n));
    const Eigen::ArrayXd xs = TestFixture::values(n, 0, 1, 24), ys = TestFixture::values(n, 1, 3, 25);
    const Eigen::ArrayXd r = double(T(0.25)) + double(T(1.5)) * xs - ys;
    const double loss = r.square().mean(), db = 2 * r.mean(), dw = 2 * (r * xs).mean();
    const double tolerance = TestFixture::closed * 4;

    fg::Var<T, fg::Shape<>> bv(T(0.25)), wv(T(1.5));
    const fg::Const<T, fg::Shape<fg::dyn>> xv(xs.cast<T>().eval()), yv(ys.cast<T>().eval());
    const auto [value, dbv, dwv] = fg::value_and_grad(b2(bv, wv, xv, yv), bv, wv);
    EXPECT_NEAR(double(value), loss, tolerance * std::max(1.0, loss)) << "static";
    EXPECT_NEAR(double(dbv), db, tolerance) << "static";
    EXPECT_NEAR(double(dwv), dw, tolerance) << "static";

    const Tensor x = Tensor::from(xs, {std::size_t(n)}), y = Tensor::from(ys, {std::size_t(n)});
    fg::BasicScalarTensor<T> b(T(0.25)), w(T(1.5));
    b.requires_grad_();
    w.requires_grad_();
    Tensor bt = TestFixture::param(0.25), wt = TestFixture::param(1.5);
    const Tensor scalar_tensors = b2(b, w, x, y), plain_tensors = b2(bt, wt, x, y);
    const Tensor taped = fg::taped(b2(bt, wt, x, y));
    TestFixture::expect_value(scalar_tensors, loss, tolerance, "ScalarTensor");
    TestFixture::expect_value(plain_tensors, loss, tolerance, "plain Tensor");
    TestFixture::expect_value(taped, loss, tolerance, "taped");
    scalar_tensors.backward();
    EXPECT_NEAR(double(b.grad().item()), db, tolerance) << "ScalarTensor";
    EXPECT_NEAR(double(w.grad().item()), dw, tolerance) << "ScalarTensor";
    plain_tensors.backward();
    EXPECT_NEAR(double(bt.grad().item()), db, tolerance) << "plain Tensor";
    EXPECT_NEAR(double(wt.grad().item()), dw, tolerance) << "plain Tensor";
    bt.zero_grad();
    wt.zero_grad();
    taped.backward();
    EXPECT_NEAR(double(bt.grad().item()), db, tolerance) << "taped";
    EXPECT_NEAR(double(wt.grad().item()), dw, tolerance) << "taped";
  }
}

// A scalar term under a full reduction (`- 3 log(s)`, `+ s` in f = -mean(y w - 3 log(s) + s)) receives the same
// upstream at every element: its gradient is that upstream times the number of elements, at every block boundary.
//   df/dw = -mean(y),  df/ds = 3 / s - 1;  for g = sum(y w - 3 log(s)): dg/ds = -3 N / s.
TYPED_TEST(ScalarTensorBridge, AScalarTermUnderAFullReductionCountsEveryElement) {
  using T = TypeParam;
  using Tensor = typename TestFixture::Tensor;
  constexpr Eigen::Index block = fg::detail::block_length;
  const auto f = [](const auto& w, const auto& s, const auto& y) { return -fg::mean(y * w - 3.0 * fg::log(s) + s); };
  const auto g = [](const auto& w, const auto& s, const auto& y) { return fg::sum(y * w - 3.0 * fg::log(s)); };
  const double wd = double(T(0.5)), sd = double(T(1.25));
  for (const Eigen::Index n : {Eigen::Index(1), Eigen::Index(2), block - 1, block, block + 1, 2 * block + 1,
                               Eigen::Index(100), Eigen::Index(1000)}) {
    SCOPED_TRACE("N = " + std::to_string(n));
    const Eigen::ArrayXd ys = TestFixture::values(n, -1, 3, 26);
    const double f_value = -(ys.mean() * wd - 3 * std::log(sd) + sd), dw = -ys.mean(), ds = 3 / sd - 1;
    const double g_value = ys.sum() * wd - 3 * double(n) * std::log(sd), g_ds = -3 * double(n) / sd;
    const double tolerance = TestFixture::closed * 4, g_tolerance = tolerance * double(n);

    fg::Var<T, fg::Shape<>> wv(T(0.5)), sv(T(1.25));
    const fg::Const<T, fg::Shape<fg::dyn>> yv(ys.cast<T>().eval());
    const auto [fv, dwv, dsv] = fg::value_and_grad(f(wv, sv, yv), wv, sv);
    EXPECT_NEAR(double(fv), f_value, tolerance) << "static";
    EXPECT_NEAR(double(dwv), dw, tolerance) << "static";
    EXPECT_NEAR(double(dsv), ds, tolerance) << "static";
    const auto [gv, gsv] = fg::value_and_grad(g(wv, sv, yv), sv);
    EXPECT_NEAR(double(gv), g_value, g_tolerance) << "static";
    EXPECT_NEAR(double(gsv), g_ds, g_tolerance) << "static";

    const Tensor y = Tensor::from(ys, {std::size_t(n)});
    fg::BasicScalarTensor<T> w(T(0.5)), s(T(1.25));
    w.requires_grad_();
    s.requires_grad_();
    Tensor wt = TestFixture::param(0.5), st = TestFixture::param(1.25);
    const Tensor scalar_tensors = f(w, s, y), plain_tensors = f(wt, st, y), taped = fg::taped(f(wt, st, y));
    TestFixture::expect_value(scalar_tensors, f_value, tolerance, "ScalarTensor");
    TestFixture::expect_value(plain_tensors, f_value, tolerance, "plain Tensor");
    TestFixture::expect_value(taped, f_value, tolerance, "taped");
    scalar_tensors.backward();
    EXPECT_NEAR(double(w.grad().item()), dw, tolerance) << "ScalarTensor";
    EXPECT_NEAR(double(s.grad().item()), ds, tolerance) << "ScalarTensor";
    plain_tensors.backward();
    EXPECT_NEAR(double(wt.grad().item()), dw, tolerance) << "plain Tensor";
    EXPECT_NEAR(double(st.grad().item()), ds, tolerance) << "plain Tensor";
    wt.zero_grad();
    st.zero_grad();
    taped.backward();
    EXPECT_NEAR(double(wt.grad().item()), dw, tolerance) << "taped";
    EXPECT_NEAR(double(st.grad().item()), ds, tolerance) << "taped";
    s.zero_grad();
    const Tensor g_tensor = g(w, s, y);
    TestFixture::expect_value(g_tensor, g_value, g_tolerance, "ScalarTensor, sum");
    g_tensor.backward();
    EXPECT_NEAR(double(s.grad().item()), g_ds, g_tolerance) << "ScalarTensor, sum";
  }
  // A segment whose length is static: 37 elements, two blocks and part of a third (or more, shorter ones).
  const Eigen::ArrayXd ys = TestFixture::values(37, -1, 3, 27);
  fg::Var<T, fg::Shape<>> wv(T(0.5)), sv(T(1.25));
  const fg::Const<T, fg::Shape<37>> yv(ys.cast<T>().eval());
  const auto [fv, dwv, dsv] = fg::value_and_grad(f(wv, sv, yv), wv, sv);
  const double tolerance = TestFixture::closed * 4;
  EXPECT_NEAR(double(fv), -(ys.mean() * wd - 3 * std::log(sd) + sd), tolerance) << "Shape<37>";
  EXPECT_NEAR(double(dwv), -ys.mean(), tolerance) << "Shape<37>";
  EXPECT_NEAR(double(dsv), 3 / sd - 1, tolerance) << "Shape<37>";
  const auto [gv, gsv] = fg::value_and_grad(g(wv, sv, yv), sv);
  EXPECT_NEAR(double(gsv), -3 * 37 / sd, tolerance * 37) << "Shape<37>";
  EXPECT_NEAR(double(gv), ys.sum() * wd - 3 * 37 * std::log(sd), tolerance * 37) << "Shape<37>";
}

TEST(ScalarTensor, IsATensorHandle) {
  fg::ScalarTensor s(2.0);
  const fg::Tensor t = s;  // the same handle
  EXPECT_EQ(t.impl(), s.impl());
  EXPECT_EQ(s.dim(), 0u);
  EXPECT_DOUBLE_EQ(s.item(), 2.0);
  const fg::ScalarTensor back(t);
  EXPECT_EQ(back.impl(), s.impl());
  EXPECT_EQ(s.requires_grad_().requires_grad(), true);
  const fg::ScalarTensor d = s.detach();
  EXPECT_FALSE(d.requires_grad());
  EXPECT_DOUBLE_EQ(d.item(), 2.0);
}

TEST(ScalarTensor, RecordsAScalarExpression) {
  fg::ScalarTensor a(3.0), b(0.5);
  a.requires_grad_();
  const fg::ScalarTensor c = fg::log(a) * b;  // Shape<> expression: recorded as one node
  EXPECT_EQ(c.grad_fn_name(), "FusedBackward");
  EXPECT_DOUBLE_EQ(c.item(), std::log(3.0) * 0.5);
  c.backward();
  EXPECT_DOUBLE_EQ(a.grad().item(), 0.5 / 3.0);
}

TEST(ScalarTensor, BesideAOneElementVector) {
  // () with (1) broadcasts to (1): a segment of one element whose shape is known only at run time.
  fg::ScalarTensor s(2.0);
  s.requires_grad_();
  fg::Tensor v = fg::Tensor::from({5.0}, {1}).requires_grad_();
  const fg::Tensor f = fg::sum(fg::exp(s) * v * v);
  EXPECT_EQ(f.shape(), Extents{});
  f.backward();
  EXPECT_DOUBLE_EQ(f.item(), std::exp(2.0) * 25.0);
  EXPECT_DOUBLE_EQ(s.grad().item(), std::exp(2.0) * 25.0);
  EXPECT_DOUBLE_EQ(v.grad().item(), std::exp(2.0) * 10.0);
}

TEST(ScalarTensor, OverAnEmptyVector) {
  fg::ScalarTensor s(2.0);
  s.requires_grad_();
  const fg::Tensor f = fg::sum(fg::log(s) * fg::Tensor::zeros({0}));
  f.backward();
  EXPECT_DOUBLE_EQ(f.item(), 0.0);
  EXPECT_DOUBLE_EQ(s.grad().item(), 0.0);
}

TEST(ScalarTensor, InPlaceUpdatesAreVersioned) {
  fg::ScalarTensor sigma(1.5);
  sigma.requires_grad_();
  const fg::Tensor y = fg::Tensor::from({1.0, 2.0, 3.0}, {3});
  const fg::Tensor f = fg::sum(fg::square(y / sigma));
  {
    const fg::NoGradGuard no_grad;
    sigma.mul_(2.0);
  }
  expect_error<fg::graph_error>([&] { f.backward(); }, {"modified in place", "version"});
}

TEST(ScalarTensor, RejectsOtherRanks) {
  const fg::Tensor v = fg::Tensor::ones({3});
  expect_error<fg::shape_error>([&] { fg::ScalarTensor s(v); }, {"ScalarTensor", "(3)", "rank 0"});
  expect_error<fg::shape_error>([&] { fg::ScalarTensor s(fg::Tensor::ones({1})); }, {"(1)", "rank 0"});
  expect_error<fg::shape_error>([&] { fg::ScalarTensor s = v * 2.0; }, {"(3)", "rank 0"});
}

// Assigned through a Tensor& (the base class's assignment, which no ScalarTensor check sees), a ScalarTensor can hold
// another rank: recording an expression over it is refused, fused or taped, where the sweep would read one of its
// values (sum(s * x) with s = (10, 20, 30) and x = 1 is 60, not 30).
TEST(ScalarTensor, HoldingAnotherRankIsRefusedWhenRecorded) {
  fg::ScalarTensor s(2.0);
  static_cast<fg::Tensor&>(s) = fg::Tensor::from({10.0, 20.0, 30.0}, {3});
  fg::Tensor x = fg::Tensor::ones({3}).requires_grad_();
  expect_error<fg::shape_error>([&] { (void)fg::Tensor(fg::sum(s * x)); }, {"ScalarTensor", "(3)", "rank 0"});
  expect_error<fg::shape_error>([&] { (void)fg::Tensor(fg::exp(s)); }, {"ScalarTensor", "(3)"});
  expect_error<fg::shape_error>([&] { (void)fg::taped(fg::sum(s * x)); }, {"ScalarTensor", "(3)"});
  EXPECT_FALSE(x.grad().defined());
}

}  // namespace
