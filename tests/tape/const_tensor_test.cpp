// tape/const_tensor_test.cpp -- ConstTensor: a Tensor typed to take no gradient, so fused nodes skip its VJPs.
#include <cmath>
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
class ConstTensorBridge : public fg::test::Bridge<T> {};
using Scalars = ::testing::Types<double, float>;
TYPED_TEST_SUITE(ConstTensorBridge, Scalars);

static_assert(!fg::ConstTensor::takes_grad && fg::Tensor::takes_grad);
static_assert(!decltype(fg::ConstTensor() * fg::ConstTensor())::takes_grad);
static_assert(decltype(fg::ConstTensor() * fg::Tensor())::takes_grad);
static_assert(std::is_same_v<fg::ConstTensor::static_shape, fg::AnyShape>);
static_assert(std::is_same_v<fg::ConstTensor, fg::BasicConstTensor<double>>);
static_assert(std::is_same_v<fg::FloatConstTensor, fg::BasicConstTensor<float>>);

// B2 over ConstTensor data: the numbers of the static layer (Const data), of plain Tensor
// data, and of the closed form d/db = 2 mean(r), d/dw = 2 mean(r x).
TYPED_TEST(ConstTensorBridge, B2MatchesStaticConstsPlainTensorsAndTheClosedForm) {
  using T = TypeParam;
  using Tensor = typename TestFixture::Tensor;
  using Data = fg::BasicConstTensor<T>;
  const Eigen::ArrayXd xs = TestFixture::values(700, 0, 1, 31), ys = TestFixture::values(700, 1, 3, 32);
  fg::Var<T, fg::Shape<>> bv(T(0.25)), wv(T(1.5));
  const fg::Const<T, fg::Shape<fg::dyn>> xv(xs.cast<T>().eval()), yv(ys.cast<T>().eval());
  const auto [value, db, dw] = fg::value_and_grad(b2(bv, wv, xv, yv), bv, wv);

  const Data x(Tensor::from(xs, {700})), y(Tensor::from(ys, {700}));
  fg::BasicScalarTensor<T> b(T(0.25)), w(T(1.5));
  b.requires_grad_();
  w.requires_grad_();
  const Tensor loss = b2(b, w, x, y);
  EXPECT_EQ(loss.grad_fn_name(), "FusedBackward");
  loss.backward();
  TestFixture::expect_value(loss, double(value), TestFixture::identical, "loss against the static layer");
  EXPECT_NEAR(double(b.grad().item()), double(db), TestFixture::identical * 4);
  EXPECT_NEAR(double(w.grad().item()), double(dw), TestFixture::identical * 4);
  const Eigen::ArrayXd r = double(T(0.25)) + double(T(1.5)) * xs - ys;
  EXPECT_NEAR(double(b.grad().item()), 2 * r.mean(), TestFixture::closed * 4);
  EXPECT_NEAR(double(w.grad().item()), 2 * (r * xs).mean(), TestFixture::closed * 4);

  // Plain Tensor data that does not require grad: the same gradients, the data get none.
  const Tensor xt = Tensor::from(xs, {700}), yt = Tensor::from(ys, {700});
  Tensor bt = TestFixture::param(0.25), wt = TestFixture::param(1.5);
  const Tensor plain = b2(bt, wt, xt, yt);
  plain.backward();
  EXPECT_NEAR(double(bt.grad().item()), double(b.grad().item()), TestFixture::same * 4);
  EXPECT_NEAR(double(wt.grad().item()), double(w.grad().item()), TestFixture::same * 4);
  EXPECT_FALSE(x.grad().defined());

  // One node per op: the same numbers.
  b.zero_grad();
  w.zero_grad();
  const Tensor taped = fg::taped(b2(b, w, x, y));
  EXPECT_EQ(taped.grad_fn_name(), "MeanBackward");
  taped.backward();
  TestFixture::expect_value(taped, double(value), TestFixture::same, "taped loss");
  EXPECT_NEAR(double(w.grad().item()), double(dw), TestFixture::same * 4);
  EXPECT_FALSE(y.grad().defined());
}

// B3 with the data as a ConstTensor: d/dmu = sum(y - mu) / sigma^2, d/dsigma = sum((y - mu)^2) / sigma^3 - n / sigma.
TYPED_TEST(ConstTensorBridge, B3ClosedForm) {
  using T = TypeParam;
  const Eigen::ArrayXd ys = TestFixture::values(400, -1, 3, 33);
  const fg::BasicConstTensor<T> y(TestFixture::Tensor::from(ys, {400}));
  fg::BasicScalarTensor<T> mu(T(0.75)), sigma(T(1.5));
  mu.requires_grad_();
  sigma.requires_grad_();
  const typename TestFixture::Tensor f = b3(y, mu, sigma);
  f.backward();
  const double m = double(T(0.75)), s = double(T(1.5));
  const Eigen::ArrayXd d = ys - m;
  EXPECT_NEAR(double(mu.grad().item()), d.sum() / (s * s), TestFixture::closed * 400);
  EXPECT_NEAR(double(sigma.grad().item()), d.square().sum() / (s * s * s) - 400 / s, TestFixture::closed * 400);
}

TEST(ConstTensor, SharesTheValuesOfTheTensorItIsMadeFrom) {
  fg::Tensor t = fg::Tensor::from({1.0, 2.0, 3.0}, {3}).requires_grad_();
  const fg::ConstTensor c(t);
  EXPECT_EQ(c.data(), t.data());  // the same storage, a different (detached) handle
  EXPECT_NE(c.impl(), t.impl());
  EXPECT_FALSE(c.requires_grad());
  EXPECT_TRUE(c.is_leaf());
  {
    const fg::NoGradGuard no_grad;
    t.mul_(2.0);
  }
  EXPECT_DOUBLE_EQ(c.eigen()[2], 6.0);
  EXPECT_FALSE(fg::ConstTensor().defined());
  EXPECT_FALSE(c.detach().requires_grad());
}

TEST(ConstTensor, NeverRequiresGrad) {
  fg::ConstTensor c(fg::Tensor::ones({2}));
  EXPECT_NO_THROW(c.requires_grad_(false));
  expect_error<fg::graph_error>([&] { c.requires_grad_(); }, {"ConstTensor", "never takes gradients", "detach()"});
  // Through a Tensor& the flag can be set; recording then refuses, rather than return no gradient.
  fg::Tensor& as_tensor = c;
  as_tensor.requires_grad_();
  fg::Tensor w = fg::Tensor::scalar(2.0).requires_grad_();
  expect_error<fg::graph_error>([&] { const fg::Tensor f = fg::sum(w * c); }, {"ConstTensor requires grad"});
}

TEST(ConstTensor, AnExpressionOfConstantsIsNotRecorded) {
  const fg::ConstTensor a(fg::Tensor::from({1.0, 2.0}, {2})), b(fg::Tensor::from({3.0, 4.0}, {2}));
  const fg::Tensor f = fg::sum(a * b);
  EXPECT_FALSE(f.requires_grad());
  EXPECT_TRUE(f.is_leaf());
  EXPECT_DOUBLE_EQ(f.item(), 11.0);
}

// A static Const alone, assigned to a Tensor, is a tensor of its values that takes no gradient (with either compiler:
// a one-op node's traits must not ask a leaf for its op).
TEST(ConstTensor, AStaticConstAloneBecomesATensorOfItsValues) {
  const fg::Const<double, fg::Shape<2>> c{1.0, 2.0};
  const fg::Tensor t = c;
  EXPECT_EQ(t.numel(), 2u);
  EXPECT_DOUBLE_EQ(t.data()[1], 2.0);
  EXPECT_FALSE(t.requires_grad());
  const fg::Tensor s = fg::Const<double, fg::Shape<>>(2.5);
  EXPECT_DOUBLE_EQ(s.item(), 2.5);
}

TEST(ConstTensor, InPlaceWritesAfterRecordingAreCaught) {
  fg::ConstTensor x(fg::Tensor::from({1.0, 2.0, 3.0}, {3}));
  fg::Tensor w = fg::Tensor::scalar(0.5).requires_grad_();
  const fg::Tensor f = fg::sum(fg::exp(w * x));
  x.mutable_eigen()[0] = 10.0;  // data: allowed in grad mode, but the node read the old values
  expect_error<fg::graph_error>([&] { f.backward(); }, {"modified in place", "version"});
}

TEST(ConstTensor, BroadcastsAgainstParameters) {
  // (2, 3) data, (3) weights: d/dw_j = sum_i x_ij.
  const fg::ConstTensor x(fg::Tensor::from({1.0, 2.0, 3.0, 4.0, 5.0, 6.0}, {2, 3}));
  fg::Tensor w = fg::Tensor::from({1.0, 1.0, 1.0}, {3}).requires_grad_();
  const fg::Tensor f = fg::sum(w * x);
  f.backward();
  EXPECT_DOUBLE_EQ(f.item(), 21.0);
  EXPECT_EQ(w.grad().shape(), Extents{3});
  EXPECT_DOUBLE_EQ(w.grad().eigen()[0], 5.0);
  EXPECT_DOUBLE_EQ(w.grad().eigen()[1], 7.0);
  EXPECT_DOUBLE_EQ(w.grad().eigen()[2], 9.0);
}

}  // namespace
