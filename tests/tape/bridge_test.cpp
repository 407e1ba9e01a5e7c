// tape/bridge_test.cpp -- fused and taped recording agree with each other and with closed forms; deferred values.
#include <cmath>
#include <random>
#include <string>
#include <type_traits>

#include <gtest/gtest.h>
#include <Eigen/Core>

#include <fusegrad/fusegrad.hpp>

#include "support/expect_error.hpp"
#include "support/finite_difference.hpp"
#include "tape/bridge_cases.hpp"

namespace {

namespace fg = fusegrad;
using fg::Extents;
using fg::test::b1;
using fg::test::b2;
using fg::test::b3;
using fg::test::Bridge;
using fg::test::expect_error;
using fg::test::expect_near_all;
using fg::test::mlp;

using Scalars = ::testing::Types<double, float>;
TYPED_TEST_SUITE(Bridge, Scalars);

TYPED_TEST(Bridge, B1ElementwiseChain) {
  using Tensor = typename TestFixture::Tensor;
  const Eigen::ArrayXd xs = TestFixture::values(1000, -2, 2, 1);
  Tensor x = TestFixture::param(xs, {1000});
  const Tensor fused = b1(x);
  EXPECT_EQ(fused.grad_fn_name(), "FusedBackward");
  fused.backward();
  const Eigen::ArrayXd fused_grad = TestFixture::grad_of(x);
  x.zero_grad();
  const Tensor taped = fg::taped(b1(x));
  EXPECT_EQ(taped.grad_fn_name(), "SumBackward");
  taped.backward();
  const Eigen::ArrayXd taped_grad = TestFixture::grad_of(x);

  const auto by_hand = fg::test::b1_by_hand(xs);
  TestFixture::expect_value(fused, by_hand.value, TestFixture::closed, "fused value");
  TestFixture::expect_value(taped, double(fused.item()), TestFixture::same, "taped value");
  expect_near_all(fused_grad, by_hand.dx, TestFixture::closed, "fused dx");
  expect_near_all(taped_grad, fused_grad, TestFixture::same, "taped dx against fused");
}

TYPED_TEST(Bridge, B2LinearRegressionMse) {
  using Tensor = typename TestFixture::Tensor;
  const Eigen::ArrayXd xs = TestFixture::values(80, 0, 1, 2);
  const Eigen::ArrayXd ys =
      (1 + 2 * xs + 0.1 * TestFixture::values(80, -1, 1, 3)).template cast<TypeParam>().template cast<double>();
  const double b0 = 0.25, w0 = -0.5;
  Tensor b = TestFixture::param(b0), w = TestFixture::param(w0);
  const Tensor x = Tensor::from(xs, {80}), y = Tensor::from(ys, {80});
  const Tensor fused = b2(b, w, x, y);
  fused.backward();
  const double fused_db = b.grad().item(), fused_dw = w.grad().item();
  b.zero_grad();
  w.zero_grad();
  const Tensor taped = fg::taped(b2(b, w, x, y));
  EXPECT_EQ(taped.grad_fn_name(), "MeanBackward");
  taped.backward();

  const auto by_hand = fg::test::b2_by_hand(b0, w0, xs, ys);
  TestFixture::expect_value(fused, by_hand.value, TestFixture::closed, "fused loss");
  EXPECT_NEAR(fused_db, by_hand.db, TestFixture::closed * 4);
  EXPECT_NEAR(fused_dw, by_hand.dw, TestFixture::closed * 4);
  TestFixture::expect_value(taped, double(fused.item()), TestFixture::same, "taped loss");
  EXPECT_NEAR(double(b.grad().item()), fused_db, TestFixture::same * 4);
  EXPECT_NEAR(double(w.grad().item()), fused_dw, TestFixture::same * 4);
  EXPECT_FALSE(x.grad().defined());
  EXPECT_FALSE(y.grad().defined());
}

TYPED_TEST(Bridge, B3NormalLogDensity) {
  using Tensor = typename TestFixture::Tensor;
  const Eigen::ArrayXd ys = TestFixture::values(100, -1, 3, 4);
  const double m = 0.75, s = 1.5;  // exact in float
  Tensor mu = TestFixture::param(m), sigma = TestFixture::param(s);
  const Tensor y = Tensor::from(ys, {100});
  const Tensor fused = b3(y, mu, sigma);
  fused.backward();
  const double fused_dmu = mu.grad().item(), fused_dsigma = sigma.grad().item();
  mu.zero_grad();
  sigma.zero_grad();
  const Tensor taped = fg::taped(b3(y, mu, sigma));
  taped.backward();

  const auto [value, dmu, dsigma] = fg::test::b3_by_hand(ys, m, s);
  TestFixture::expect_value(fused, value, TestFixture::closed, "fused value");
  EXPECT_NEAR(fused_dmu, dmu, TestFixture::closed * std::max(1.0, std::abs(dmu)) * 10);
  EXPECT_NEAR(fused_dsigma, dsigma, TestFixture::closed * std::max(1.0, std::abs(dsigma)) * 10);
  TestFixture::expect_value(taped, double(fused.item()), TestFixture::same, "taped value");
  EXPECT_NEAR(double(mu.grad().item()), fused_dmu, TestFixture::same * std::max(1.0, std::abs(dmu)) * 10);
  EXPECT_NEAR(double(sigma.grad().item()), fused_dsigma, TestFixture::same * std::max(1.0, std::abs(dsigma)) * 10);
}

// t = a b + sin(a + b) for a (3,1), b (1,4), and an upstream G (3,4):
//   da_i = sum_j G_ij (b_j + cos(a_i + b_j)),  db_j = sum_i G_ij (a_i + cos(a_i + b_j)).
TYPED_TEST(Bridge, BroadcastGradientsAreReducedToTheOperands) {
  using Tensor = typename TestFixture::Tensor;
  const Eigen::ArrayXd as = TestFixture::values(3, -1, 1, 5), bs = TestFixture::values(4, -1, 1, 6);
  const Eigen::ArrayXd gs = TestFixture::values(12, -1, 1, 7);
  Tensor a = TestFixture::param(as, {3, 1}), b = TestFixture::param(bs, {1, 4});
  const Tensor g = Tensor::from(gs, {3, 4});
  Eigen::ArrayXd value(12), da = Eigen::ArrayXd::Zero(3), db = Eigen::ArrayXd::Zero(4);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j) {
      const double gij = gs[4 * i + j], c = std::cos(as[i] + bs[j]);
      value[4 * i + j] = as[i] * bs[j] + std::sin(as[i] + bs[j]);
      da[i] += gij * (bs[j] + c);
      db[j] += gij * (as[i] + c);
    }
  for (const bool taped : {false, true}) {
    SCOPED_TRACE(taped ? "taped" : "fused");
    a.zero_grad();
    b.zero_grad();
    const Tensor t = taped ? fg::taped(a * b + fg::sin(a + b)) : Tensor(a * b + fg::sin(a + b));
    ASSERT_EQ(t.shape(), (Extents{3, 4}));
    expect_near_all(t.eigen(), value, TestFixture::closed, "value");
    t.backward(g);
    ASSERT_EQ(a.grad().shape(), (Extents{3, 1}));
    ASSERT_EQ(b.grad().shape(), (Extents{1, 4}));
    expect_near_all(TestFixture::grad_of(a), da, TestFixture::closed, "da");
    expect_near_all(TestFixture::grad_of(b), db, TestFixture::closed, "db");
  }
}

// A small MLP against its gradients by hand (mlp_by_hand).
TYPED_TEST(Bridge, MatmulBiasTanhMlp) {
  using Tensor = typename TestFixture::Tensor;
  const Eigen::ArrayXd xs = TestFixture::values(15, -1, 1, 8), ys = TestFixture::values(5, -1, 1, 9);
  const Eigen::ArrayXd w1s = TestFixture::values(12, -1, 1, 10), b1s = TestFixture::values(4, -0.5, 0.5, 11);
  const Eigen::ArrayXd w2s = TestFixture::values(4, -1, 1, 12);
  const double b2s = 0.125;
  const auto by_hand = fg::test::mlp_by_hand(xs, w1s, b1s, w2s, b2s, ys);

  Tensor w1 = TestFixture::param(w1s, {4, 3}), bias1 = TestFixture::param(b1s, {4, 1});
  Tensor w2 = TestFixture::param(w2s, {1, 4}), bias2 = TestFixture::param(b2s);
  const Tensor x = Tensor::from(xs, {3, 5}), y = Tensor::from(ys, {1, 5});
  for (const bool taped : {false, true}) {
    SCOPED_TRACE(taped ? "taped" : "fused");
    for (Tensor* p : {&w1, &bias1, &w2, &bias2}) p->zero_grad();
    const Tensor l = taped ? fg::taped(mlp(w1, x, bias1, w2, bias2, y)) : Tensor(mlp(w1, x, bias1, w2, bias2, y));
    EXPECT_EQ(l.grad_fn_name(), taped ? "MeanBackward" : "FusedBackward");
    l.backward();
    TestFixture::expect_value(l, by_hand.loss, TestFixture::closed, "loss");
    expect_near_all(TestFixture::grad_of(w1), by_hand.dw1, TestFixture::closed, "dW1");
    expect_near_all(TestFixture::grad_of(bias1), by_hand.db1, TestFixture::closed, "db1");
    expect_near_all(TestFixture::grad_of(w2), by_hand.dw2, TestFixture::closed, "dW2");
    expect_near_all(TestFixture::grad_of(bias2), TestFixture::scalar(by_hand.db2), TestFixture::closed, "db2");
  }
}

// --- deferred values of fused sums and means ---------------------------------------------------

TYPED_TEST(Bridge, DeferredValueIsRightAfterBackward) {
  using Tensor = typename TestFixture::Tensor;
  Tensor x = TestFixture::param(Eigen::ArrayXd::LinSpaced(4, 1, 4), {4});  // (1, 2, 3, 4)
  const Tensor loss = fg::sum(x * x);                                      // 30; d/dx = 2x
  loss.backward();                                                         // value and gradient in one pass
  EXPECT_EQ(loss.item(), TypeParam(30));
  EXPECT_EQ(loss.item(), TypeParam(30));  // read twice
  EXPECT_TRUE((x.grad().eigen() == Eigen::Array<TypeParam, 4, 1>(2, 4, 6, 8)).all());
  // Read the value first, then backward.
  x.zero_grad();
  const Tensor m = fg::mean(x * x);  // 7.5; d/dx = x / 2
  EXPECT_EQ(m.item(), TypeParam(7.5));
  m.backward();
  EXPECT_EQ(m.item(), TypeParam(7.5));
  EXPECT_TRUE((x.grad().eigen() == Eigen::Array<TypeParam, 4, 1>(0.5, 1, 1.5, 2)).all());
}

// An explicit upstream scales the gradient but not the value computed in the same pass.
TYPED_TEST(Bridge, DeferredValueIgnoresTheUpstreamGradient) {
  using Tensor = typename TestFixture::Tensor;
  Tensor x = TestFixture::param(Eigen::ArrayXd::LinSpaced(3, 1, 3), {3});  // (1, 2, 3)
  const Tensor s = fg::sum(x * x);                                         // 14; d/dx = 2x
  s.backward(Tensor::scalar(TypeParam(2)));
  EXPECT_EQ(s.item(), TypeParam(14));
  EXPECT_TRUE((x.grad().eigen() == Eigen::Array<TypeParam, 3, 1>(4, 8, 12)).all()) << x.grad().eigen();
  x.zero_grad();
  const Tensor m = fg::mean(x * x);  // 14 / 3; d/dx = 2x / 3
  m.backward(Tensor::scalar(TypeParam(3)));
  EXPECT_NEAR(double(m.item()), 14.0 / 3, 14.0 / 3 * TestFixture::closed);
  fg::test::expect_near_all(x.grad().eigen(), Eigen::ArrayXd::LinSpaced(3, 2, 6), TestFixture::closed, "dx");
  // Twice through a retained graph: the value stays, the gradients add up.
  x.zero_grad();
  const Tensor r = fg::mean(fg::square(x - TypeParam(1)));  // (0 + 1 + 4) / 3; d/dx = 2 (x - 1) / 3
  r.backward({.retain_graph = true});
  r.backward();
  EXPECT_NEAR(double(r.item()), 5.0 / 3, 5.0 / 3 * TestFixture::closed);
  fg::test::expect_near_all(x.grad().eigen(), Eigen::ArrayXd::LinSpaced(3, 0, 8.0 / 3), TestFixture::closed, "dx");
}

TYPED_TEST(Bridge, DeferredValueSurvivesAnOptimiserStepAfterBackward) {
  using Tensor = typename TestFixture::Tensor;
  Tensor w = TestFixture::param(2.0);
  const Tensor x = Tensor::from(Eigen::ArrayXd::LinSpaced(3, 1, 3), {3});  // (1, 2, 3)
  const Tensor loss = fg::mean(fg::square(w * x));                         // 4 * 14 / 3; d/dw = 2 w 14 / 3 = 56 / 3
  loss.backward();
  {
    fg::NoGradGuard guard;
    w.sub_(w.grad(), TypeParam(0.5));
  }
  EXPECT_NEAR(double(loss.item()), 56.0 / 3, 56.0 / 3 * TestFixture::closed);  // the value before the step
  EXPECT_NEAR(double(w.item()), 2 - 28.0 / 3, 10 * TestFixture::closed);
}

TYPED_TEST(Bridge, DeferredValuesChainThroughAnotherDeferredNode) {
  using Tensor = typename TestFixture::Tensor;
  Tensor x = TestFixture::param(Eigen::ArrayXd::LinSpaced(3, 1, 3), {3});
  const Tensor inner = fg::sum(x * x);      // 14, deferred
  const Tensor outer = fg::sum(inner * x);  // 14 * 6 = 84, deferred; d/dx = 2x * sum(x) + sum(x^2)
  outer.backward();
  EXPECT_EQ(outer.item(), TypeParam(84));
  EXPECT_EQ(inner.item(), TypeParam(14));
  EXPECT_TRUE((x.grad().eigen() == Eigen::Array<TypeParam, 3, 1>(26, 38, 50)).all()) << x.grad().eigen();
}

TYPED_TEST(Bridge, DeferredValueIsTheValueAtRecording) {
  // Deferral is an optimisation: reading item() after an input changed in place must give the
  // value of the expression when it was recorded, as an eager framework would.
  using Tensor = typename TestFixture::Tensor;
  Tensor w = TestFixture::param(1.0);
  Tensor x = Tensor::from(Eigen::ArrayXd::LinSpaced(3, 1, 3), {3});
  const Tensor loss = fg::sum(w * x);   // 6
  const Tensor mean = fg::mean(w * x);  // 2
  x.mutable_eigen()[0] = 100;
  EXPECT_EQ(loss.item(), TypeParam(6));
  EXPECT_EQ(mean.item(), TypeParam(2));
  // The gradient would read the changed x: that is still an error naming the change.
  expect_error<fg::graph_error>([&] { loss.backward(); }, {"modified in place"});
}

TYPED_TEST(Bridge, DeferredValuesSettleOnceAndForgetTheirInputs) {
  using Tensor = typename TestFixture::Tensor;
  Tensor w = TestFixture::param(2.0);
  Tensor x = Tensor::from(Eigen::ArrayXd::LinSpaced(3, 1, 3), {3});
  {
    const Tensor dropped = fg::sum(w * x);  // deferred, then dropped unread
  }
  const Tensor read = fg::sum(w * x);
  EXPECT_EQ(read.item(), TypeParam(12));  // computed by item()
  const Tensor by_backward = fg::sum(w * x);
  by_backward.backward();  // computed by backward, in the same pass as the gradient
  EXPECT_EQ(by_backward.item(), TypeParam(12));
  EXPECT_EQ(w.grad().item(), TypeParam(6));
  // None of them is a deferred reader any more: an in-place write computes nothing, throws nothing.
  x.mutable_eigen()[2] = 30;
  EXPECT_EQ(read.item(), TypeParam(12));
  EXPECT_EQ(x.eigen().sum(), TypeParam(33));
}

// --- deferred values of one-element element-wise roots ---------------------------------------------

// B4's expression on scalar tensors: one node of seven ops whose value is one element, deferred. Its backward
// sweeps the chains forward before it reverses them, and writes the value it passes.
TYPED_TEST(Bridge, OneElementValueComesFromTheBackwardSweep) {
  using Tensor = typename TestFixture::Tensor;
  using T = TypeParam;
  Tensor x = TestFixture::param(0.5), y = TestFixture::param(2.0), z = TestFixture::param(1.5);
  const double value = 0.5 * 2.0 + std::sin(0.5) * std::exp(1.5) - 2.0 / 1.5;
  const Tensor f = x * y + fg::sin(x) * fg::exp(z) - y / z;
  f.backward();  // value and gradient in one pass
  EXPECT_NEAR(double(f.item()), value, std::abs(value) * TestFixture::closed);
  EXPECT_NEAR(double(x.grad().item()), 2.0 + std::cos(0.5) * std::exp(1.5), 5 * TestFixture::closed);
  EXPECT_NEAR(double(y.grad().item()), 0.5 - 1.0 / 1.5, TestFixture::closed);
  EXPECT_NEAR(double(z.grad().item()), std::sin(0.5) * std::exp(1.5) + 2.0 / (1.5 * 1.5), 5 * TestFixture::closed);
  // Read first, then backward: the same value, and the gradients add up.
  const Tensor g = x * y + fg::sin(x) * fg::exp(z) - y / z;
  EXPECT_NEAR(double(g.item()), value, std::abs(value) * TestFixture::closed);
  g.backward();
  EXPECT_NEAR(double(g.item()), value, std::abs(value) * TestFixture::closed);
  EXPECT_NEAR(double(y.grad().item()), 2 * (0.5 - 1.0 / 1.5), TestFixture::closed);
  // An upstream gradient scales the gradients, not the value; twice through a retained graph.
  x.zero_grad();
  const Tensor h = fg::square(x) * y;  // 0.5; d/dx = 2 x y = 2
  h.backward(Tensor::scalar(T(3)), {.retain_graph = true});
  h.backward(Tensor::scalar(T(3)));
  EXPECT_EQ(h.item(), T(0.5));
  EXPECT_EQ(x.grad().item(), T(12));
}

TYPED_TEST(Bridge, OneElementDeferredValueIsTheValueAtRecording) {
  using Tensor = typename TestFixture::Tensor;
  using T = TypeParam;
  Tensor w = TestFixture::param(3.0);
  Tensor b = Tensor::scalar(T(1));
  const Tensor f = w * w + b;  // 10, deferred
  {
    const Tensor dropped = w * b - b;  // deferred, then dropped unread
  }
  b.mutable_eigen()[0] = 100;  // computes f's value first
  EXPECT_EQ(f.item(), T(10));
  expect_error<fg::graph_error>([&] { f.backward(); }, {"modified in place"});
}

// A deferred value's shapes are checked when it is recorded, also under full reductions and products, whose
// extents the root's own extents() does not look at: the error comes at once, not at a read, a backward or an
// in-place write to a tensor it reads.
TYPED_TEST(Bridge, OneElementDeferredValueReportsShapeErrorsAtRecording) {
  using Tensor = typename TestFixture::Tensor;
  using T = TypeParam;
  Tensor w = TestFixture::param(Eigen::ArrayXd::LinSpaced(3, 1, 3), {3});
  const Tensor a = Tensor::from(Eigen::ArrayXd::LinSpaced(2, 1, 2), {2});
  expect_error<fg::shape_error>([&] { (void)Tensor(fg::sum(w * w) * fg::sum(w * a)); }, {"(3)", "(2)"});
  const Tensor m = Tensor::from(Eigen::ArrayXd::LinSpaced(6, 1, 6), {2, 3});
  expect_error<fg::shape_error>([&] { (void)Tensor(fg::exp(fg::sum(fg::matmul(m, a))) + T(1)); }, {"matmul"});
}

}  // namespace

namespace {

// Taped nodes of one op run the op spec on flat maps when nothing is broadcast, and the
// sweep otherwise; both must give the closed forms, also when one tensor is both operands.
TYPED_TEST(Bridge, TapedSingleOpNodesWithAndWithoutBroadcasting) {
  using Tensor = typename TestFixture::Tensor;
  using T = TypeParam;
  const Eigen::ArrayXd xs = TestFixture::values(5, -1, 1, 31);
  Tensor x = TestFixture::param(xs, {5});
  Tensor s = TestFixture::param(0.75);

  const Tensor square = fg::taped(fg::sum(x * x));  // flat, the same tensor on both sides
  EXPECT_EQ(square.grad_fn_name(), "SumBackward");
  square.backward();
  fg::test::expect_near_all(TestFixture::grad_of(x), (2 * xs).eval(), TestFixture::closed, "d sum(x x)/dx");

  x.zero_grad();
  const Tensor tanh = fg::taped(fg::sum(fg::tanh(x)));  // flat, the VJP reads the output
  tanh.backward();
  fg::test::expect_near_all(TestFixture::grad_of(x), (1 - xs.tanh().square()).eval(), TestFixture::closed,
                            "d sum(tanh x)/dx");

  x.zero_grad();
  const Tensor scaled = fg::taped(fg::sum(fg::exp(x) * s));  // s is broadcast: the sweep
  scaled.backward();
  const double sv = double(T(0.75));
  fg::test::expect_near_all(TestFixture::grad_of(x), (sv * xs.exp()).eval(), TestFixture::closed, "d/dx");
  EXPECT_NEAR(double(s.grad().item()), xs.exp().sum(), TestFixture::closed * 10) << "d/ds";
}

// One-element tensors take the single-op path with fixed-size Eigen values: every op's value
// and gradients must be those of the static layer on scalar Vars.
// Every element-wise op recorded alone by fg::taped on tensors of one element, of rank 0 and of rank 1 (a one-op
// node's one-element path), against the op's value and derivatives in closed form.
TYPED_TEST(Bridge, TapedOpsOnOneElementTensors) {
  using Tensor = typename TestFixture::Tensor;
  using T = TypeParam;
  const double tolerance = TestFixture::closed * 10;  // values and derivatives here are below 10
  const double u = double(T(0.6));
  const auto unary = [&](const char* name, auto f, double value, double derivative) {
    for (const Extents& shape : {Extents{}, Extents{1}}) {
      Tensor x = Tensor::full(shape, T(u)).requires_grad_();
      const Tensor y = fg::taped(f(x));
      Tensor(fg::sum(y)).backward();
      EXPECT_NEAR(double(y.data()[0]), value, tolerance) << name << " value, shape " << shape.to_string();
      EXPECT_NEAR(double(x.grad().data()[0]), derivative, tolerance)
          << name << " gradient, shape " << shape.to_string();
    }
  };
  const double sigmoid = 1 / (1 + std::exp(-u));
  unary(
      "negate", [](const auto& x) { return -x; }, -u, -1);
  unary(
      "exp", [](const auto& x) { return fg::exp(x); }, std::exp(u), std::exp(u));
  unary(
      "log", [](const auto& x) { return fg::log(x); }, std::log(u), 1 / u);
  unary(
      "log1p", [](const auto& x) { return fg::log1p(x); }, std::log1p(u), 1 / (1 + u));
  unary(
      "expm1", [](const auto& x) { return fg::expm1(x); }, std::expm1(u), std::exp(u));
  unary(
      "sqrt", [](const auto& x) { return fg::sqrt(x); }, std::sqrt(u), 0.5 / std::sqrt(u));
  unary(
      "square", [](const auto& x) { return fg::square(x); }, u * u, 2 * u);
  unary(
      "abs", [](const auto& x) { return fg::abs(x); }, u, 1);
  unary(
      "sin", [](const auto& x) { return fg::sin(x); }, std::sin(u), std::cos(u));
  unary(
      "cos", [](const auto& x) { return fg::cos(x); }, std::cos(u), -std::sin(u));
  unary(
      "tan", [](const auto& x) { return fg::tan(x); }, std::tan(u), 1 + std::tan(u) * std::tan(u));
  unary(
      "tanh", [](const auto& x) { return fg::tanh(x); }, std::tanh(u), 1 - std::tanh(u) * std::tanh(u));
  unary(
      "sigmoid", [](const auto& x) { return fg::sigmoid(x); }, sigmoid, sigmoid * (1 - sigmoid));
  unary(
      "relu", [](const auto& x) { return fg::relu(x); }, u, 1);
  unary(
      "pow(x, 2.5)", [](const auto& x) { return fg::pow(x, T(2.5)); }, std::pow(u, 2.5), 2.5 * std::pow(u, 1.5));

  const double v = double(T(1.7));
  const auto binary = [&](const char* name, auto f, double value, double d_a, double d_b) {
    for (const Extents& shape : {Extents{}, Extents{1}}) {
      Tensor a = Tensor::full(shape, T(u)).requires_grad_(), b = Tensor::full(shape, T(v)).requires_grad_();
      const Tensor y = fg::taped(f(a, b));
      Tensor(fg::sum(y)).backward();
      EXPECT_NEAR(double(y.data()[0]), value, tolerance) << name << " value, shape " << shape.to_string();
      EXPECT_NEAR(double(a.grad().data()[0]), d_a, tolerance) << name << " d/da, shape " << shape.to_string();
      EXPECT_NEAR(double(b.grad().data()[0]), d_b, tolerance) << name << " d/db, shape " << shape.to_string();
    }
  };
  binary(
      "add", [](const auto& a, const auto& b) { return a + b; }, u + v, 1, 1);
  binary(
      "sub", [](const auto& a, const auto& b) { return a - b; }, u - v, 1, -1);
  binary(
      "mul", [](const auto& a, const auto& b) { return a * b; }, u * v, v, u);
  binary(
      "div", [](const auto& a, const auto& b) { return a / b; }, u / v, 1 / v, -u / (v * v));
  binary(
      "pow", [](const auto& a, const auto& b) { return fg::pow(a, b); }, std::pow(u, v), v * std::pow(u, v - 1),
      std::pow(u, v) * std::log(u));
  // The larger operand takes the whole gradient, as in PyTorch (the operands differ here).
  binary(
      "maximum", [](const auto& a, const auto& b) { return fg::maximum(a, b); }, v, 0, 1);
  binary(
      "minimum", [](const auto& a, const auto& b) { return fg::minimum(a, b); }, u, 1, 0);
}

}  // namespace
