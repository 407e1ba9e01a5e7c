// tape/bridge_static_test.cpp -- one definition of every derivative: the static layer's value_and_grad gives the tape's
// numbers, and both are the gradients by hand.
#include <cmath>
#include <cstddef>

#include <gtest/gtest.h>
#include <Eigen/Core>

#include <fusegrad/fusegrad.hpp>

#include "support/finite_difference.hpp"
#include "tape/bridge_cases.hpp"

namespace {

namespace fg = fusegrad;
using fg::Extents;
using fg::test::b1;
using fg::test::b2;
using fg::test::b3;
using fg::test::expect_near_all;
using fg::test::mlp;

template <class T>
class BridgeStatic : public fg::test::Bridge<T> {};
using Scalars = ::testing::Types<double, float>;
TYPED_TEST_SUITE(BridgeStatic, Scalars);

TYPED_TEST(BridgeStatic, B1ElementwiseChain) {
  using Tensor = typename TestFixture::Tensor;
  using T = TypeParam;
  using Vector = fg::Var<T, fg::Shape<fg::dyn>>;
  constexpr double tol = TestFixture::identical;
  const Eigen::ArrayXd xs = TestFixture::values(300, -2, 2, 13);
  Vector xv(xs.cast<T>().eval());
  const auto [value, dx] = fg::value_and_grad(b1(xv), xv);
  Tensor x = TestFixture::param(xs, {300});
  const Tensor f = b1(x);
  f.backward();
  TestFixture::expect_value(f, double(value), tol, "value");
  expect_near_all(x.grad().eigen(), dx.template cast<double>().eval(), tol, "dx");
  const auto by_hand = fg::test::b1_by_hand(xs);
  TestFixture::expect_value(f, by_hand.value, TestFixture::closed, "value by hand");
  expect_near_all(dx.template cast<double>().eval(), by_hand.dx, TestFixture::closed, "dx by hand");
}

TYPED_TEST(BridgeStatic, B2LinearRegressionMse) {
  using Tensor = typename TestFixture::Tensor;
  using T = TypeParam;
  using Number = fg::Var<T, fg::Shape<>>;
  using Data = fg::Const<T, fg::Shape<fg::dyn>>;
  constexpr double tol = TestFixture::identical;
  const Eigen::ArrayXd xs = TestFixture::values(80, 0, 1, 14), ys = TestFixture::values(80, 1, 3, 15);
  Number bv(T(0.25)), wv(T(1.5));
  const Data xv(xs.cast<T>().eval()), yv(ys.cast<T>().eval());
  const auto [value, db, dw] = fg::value_and_grad(b2(bv, wv, xv, yv), bv, wv);
  Tensor b = TestFixture::param(0.25), w = TestFixture::param(1.5);
  const Tensor l = b2(b, w, Tensor::from(xs, {80}), Tensor::from(ys, {80}));
  l.backward();
  TestFixture::expect_value(l, double(value), tol, "value");
  EXPECT_NEAR(double(b.grad().item()), double(db), tol * std::max(1.0, std::abs(double(db))));
  EXPECT_NEAR(double(w.grad().item()), double(dw), tol * std::max(1.0, std::abs(double(dw))));
  const auto by_hand = fg::test::b2_by_hand(0.25, 1.5, xs, ys);
  TestFixture::expect_value(l, by_hand.value, TestFixture::closed, "value by hand");
  EXPECT_NEAR(double(db), by_hand.db, TestFixture::closed * 4) << "db by hand";
  EXPECT_NEAR(double(dw), by_hand.dw, TestFixture::closed * 4) << "dw by hand";
}

TYPED_TEST(BridgeStatic, B3NormalLogDensity) {
  using Tensor = typename TestFixture::Tensor;
  using T = TypeParam;
  using Number = fg::Var<T, fg::Shape<>>;
  using Data = fg::Const<T, fg::Shape<fg::dyn>>;
  constexpr double tol = TestFixture::identical;
  const Eigen::ArrayXd ys = TestFixture::values(100, -1, 3, 16);
  Number muv(T(0.75)), sigmav(T(1.5));
  const Data yv(ys.cast<T>().eval());
  const auto [value, dmu, dsigma] = fg::value_and_grad(b3(yv, muv, sigmav), muv, sigmav);
  Tensor mu = TestFixture::param(0.75), sigma = TestFixture::param(1.5);
  const Tensor f = b3(Tensor::from(ys, {100}), mu, sigma);
  f.backward();
  TestFixture::expect_value(f, double(value), tol, "value");
  EXPECT_NEAR(double(mu.grad().item()), double(dmu), tol * std::max(1.0, std::abs(double(dmu))));
  EXPECT_NEAR(double(sigma.grad().item()), double(dsigma), tol * std::max(1.0, std::abs(double(dsigma))));
  const auto by_hand = fg::test::b3_by_hand(ys, 0.75, 1.5);
  TestFixture::expect_value(f, by_hand.value, TestFixture::closed, "value by hand");
  EXPECT_NEAR(double(dmu), by_hand.dmu, TestFixture::closed * std::max(1.0, std::abs(by_hand.dmu)) * 10);
  EXPECT_NEAR(double(dsigma), by_hand.dsigma, TestFixture::closed * std::max(1.0, std::abs(by_hand.dsigma)) * 10);
}

TYPED_TEST(BridgeStatic, MatmulBiasTanhMlp) {
  using Tensor = typename TestFixture::Tensor;
  using T = TypeParam;
  using Number = fg::Var<T, fg::Shape<>>;
  constexpr double tol = TestFixture::identical;
  using Matrix = fg::Var<T, fg::Shape<fg::dyn, fg::dyn>>;
  const Eigen::ArrayXd xs = TestFixture::values(15, -1, 1, 17), ys = TestFixture::values(5, -1, 1, 18);
  const Eigen::ArrayXd w1s = TestFixture::values(12, -1, 1, 19), b1s = TestFixture::values(4, -1, 1, 20);
  const Eigen::ArrayXd w2s = TestFixture::values(4, -1, 1, 21);
  const auto var = [](const Eigen::ArrayXd& v, std::size_t r, std::size_t c) {
    Matrix m(Extents{r, c});
    m.value() = v.cast<T>();
    return m;
  };
  const fg::Const<T, fg::Shape<fg::dyn, fg::dyn>> xv = [&] {
    fg::Const<T, fg::Shape<fg::dyn, fg::dyn>> c(Extents{3, 5});
    c.value() = xs.cast<T>();
    return c;
  }();
  const Matrix w1v = var(w1s, 4, 3), b1v = var(b1s, 4, 1), w2v = var(w2s, 1, 4), yv = var(ys, 1, 5);
  const Number b2v(T(0.125));
  const auto [value, dw1, db1, dw2, db2] = fg::value_and_grad(mlp(w1v, xv, b1v, w2v, b2v, yv), w1v, b1v, w2v, b2v);
  Tensor w1 = TestFixture::param(w1s, {4, 3}), bias1 = TestFixture::param(b1s, {4, 1});
  Tensor w2 = TestFixture::param(w2s, {1, 4}), bias2 = TestFixture::param(0.125);
  const Tensor l = mlp(w1, Tensor::from(xs, {3, 5}), bias1, w2, bias2, Tensor::from(ys, {1, 5}));
  l.backward();
  TestFixture::expect_value(l, double(value), tol, "value");
  expect_near_all(w1.grad().eigen(), dw1.template cast<double>().eval(), tol, "dW1");
  expect_near_all(bias1.grad().eigen(), db1.template cast<double>().eval(), tol, "db1");
  expect_near_all(w2.grad().eigen(), dw2.template cast<double>().eval(), tol, "dW2");
  EXPECT_NEAR(double(bias2.grad().item()), double(db2), tol * std::max(1.0, std::abs(double(db2))));
  const auto by_hand = fg::test::mlp_by_hand(xs, w1s, b1s, w2s, 0.125, ys);
  TestFixture::expect_value(l, by_hand.loss, TestFixture::closed, "loss by hand");
  expect_near_all(dw1.template cast<double>().eval(), by_hand.dw1, TestFixture::closed, "dW1 by hand");
  expect_near_all(db1.template cast<double>().eval(), by_hand.db1, TestFixture::closed, "db1 by hand");
  expect_near_all(dw2.template cast<double>().eval(), by_hand.dw2, TestFixture::closed, "dW2 by hand");
  EXPECT_NEAR(double(db2), by_hand.db2, TestFixture::closed * std::max(1.0, std::abs(by_hand.db2))) << "db2 by hand";
}

}  // namespace
