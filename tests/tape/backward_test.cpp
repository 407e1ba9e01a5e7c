// tape/backward_test.cpp -- the engine: recording rules, backward, accumulation, shared graphs, retain_graph, versions,
// anomalies.
#include <cmath>
#include <latch>
#include <limits>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
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
using fg::Tensor;
using fg::test::expect_array_near;
using fg::test::expect_error;

// --- recording rules ----------------------------------------------------------------------------

TEST(Recording, OnlyWhatDependsOnAGradTensorIsRecorded) {
  Tensor x = Tensor::from({1.0, 2.0}, {2}).requires_grad_();
  const Tensor c = Tensor::from({3.0, 4.0}, {2});  // data: no gradient
  const Tensor y = x * c;
  EXPECT_TRUE(y.requires_grad());
  EXPECT_FALSE(y.is_leaf());
  EXPECT_EQ(y.grad_fn_name(), "MulBackward");
  const Tensor z = c * c + 1.0;  // constants only: computed, not recorded
  EXPECT_TRUE(z.is_leaf());
  EXPECT_FALSE(z.requires_grad());
  EXPECT_EQ(z.grad_fn_name(), "");
  expect_array_near(z.eigen(), {10, 17});
  const Tensor loss = fg::sum(y * z);  // d/dx = c z = (30, 68)
  loss.backward();
  expect_array_near(x.grad().eigen(), {30, 68});
  EXPECT_FALSE(c.grad().defined());  // a constant never gets a gradient
  EXPECT_FALSE(z.grad().defined());
  EXPECT_FALSE(y.grad().defined());  // a non-leaf keeps none unless retain_grad()
}

TEST(Recording, NoGradGuardRecordsNothing) {
  Tensor x = Tensor::from({1.0, 2.0}, {2}).requires_grad_();
  Tensor y, t;
  {
    fg::NoGradGuard guard;
    EXPECT_FALSE(fg::is_grad_enabled());
    y = fg::sum(x * x);
    t = fg::taped(fg::sin(x) * x);
  }
  EXPECT_TRUE(fg::is_grad_enabled());
  EXPECT_TRUE(y.is_leaf());
  EXPECT_FALSE(y.requires_grad());
  EXPECT_EQ(y.item(), 5.0);  // the value is still computed
  EXPECT_TRUE(t.is_leaf());
  EXPECT_FALSE(t.requires_grad());
  expect_error<fg::graph_error>([&] { y.backward(); }, {"does not require grad", "NoGradGuard", "detach()"});
  const Tensor of_detached = fg::sum(x.detach() * x.detach());
  expect_error<fg::graph_error>([&] { of_detached.backward(); }, {"does not require grad", "detach()"});
}

TEST(Recording, EnableGradGuardRecordsInsideNoGradGuard) {
  Tensor x = Tensor::scalar(3.0).requires_grad_();
  fg::NoGradGuard outer;
  Tensor y;
  {
    fg::EnableGradGuard inner;
    EXPECT_TRUE(fg::is_grad_enabled());
    y = x * x;
    {
      fg::NoGradGuard innermost;
      EXPECT_FALSE(fg::is_grad_enabled());
    }
    EXPECT_TRUE(fg::is_grad_enabled());  // guards restore the mode they found
  }
  EXPECT_FALSE(fg::is_grad_enabled());
  EXPECT_EQ(y.grad_fn_name(), "MulBackward");
  y.backward();  // backward itself runs whatever the mode
  EXPECT_EQ(x.grad().item(), 6.0);
}

TEST(Recording, GradModeIsPerThread) {
  {
    fg::NoGradGuard guard;  // this thread only
    bool enabled_there = false, recorded_there = false;
    double grad_there = 0;
    std::thread other([&] {
      enabled_there = fg::is_grad_enabled();
      Tensor x = Tensor::scalar(3.0).requires_grad_();
      const Tensor y = x * x;
      recorded_there = !y.is_leaf();
      y.backward();
      grad_there = x.grad().item();
    });
    other.join();
    EXPECT_TRUE(enabled_there);
    EXPECT_TRUE(recorded_there);
    EXPECT_EQ(grad_there, 6.0);
    Tensor x = Tensor::scalar(3.0).requires_grad_();
    EXPECT_TRUE(Tensor(x * x).is_leaf());  // still off here
  }
  // The other way round: a guard held by another thread while this one records.
  std::latch guard_held(1), recorded(1);
  bool disabled_there = false;
  std::thread other([&] {
    fg::NoGradGuard guard;
    guard_held.count_down();
    recorded.wait();
    disabled_there = !fg::is_grad_enabled();
  });
  guard_held.wait();
  Tensor x = Tensor::scalar(2.0).requires_grad_();
  const Tensor y = x * x;
  recorded.count_down();
  other.join();
  EXPECT_TRUE(disabled_there);
  EXPECT_EQ(y.grad_fn_name(), "MulBackward");
}

// --- backward -----------------------------------------------------------------------------------

template <class T>
class BackwardTyped : public ::testing::Test {
 protected:
  using Tensor = fg::BasicTensor<T>;
  static constexpr double tolerance = std::is_same_v<T, float> ? 2e-6 : 1e-14;
  static Tensor param(std::initializer_list<T> values) {
    return Tensor::from(values, {values.size()}).requires_grad_();
  }
};
using Scalars = ::testing::Types<double, float>;
TYPED_TEST_SUITE(BackwardTyped, Scalars);

TYPED_TEST(BackwardTyped, ScalarRootGivesTheGradient) {
  using Tensor = typename TestFixture::Tensor;
  Tensor x = TestFixture::param({1, -2, 0.5});
  const Tensor f = fg::sum(x * x * x);  // df/dx = 3 x^2
  f.backward();
  expect_array_near(x.grad().eigen(), {3, 12, 0.75}, TestFixture::tolerance);
  EXPECT_NEAR(double(f.item()), 1 - 8 + 0.125, TestFixture::tolerance);
  // A one-element tensor of rank 1 is a scalar for backward too.
  Tensor w = Tensor::full({1}, TypeParam(2)).requires_grad_();
  const Tensor g = w * w * w;  // 3 w^2 = 12
  g.backward();
  EXPECT_NEAR(double(w.grad().item()), 12, TestFixture::tolerance);
  // backward() on a leaf: its gradient is 1.
  Tensor leaf = Tensor::scalar(TypeParam(5)).requires_grad_();
  leaf.backward();
  EXPECT_EQ(leaf.grad().item(), TypeParam(1));
}

TYPED_TEST(BackwardTyped, NonScalarRootNeedsAnUpstreamGradient) {
  using Tensor = typename TestFixture::Tensor;
  Tensor x = TestFixture::param({1, 2, 3});
  const Tensor y = x * x;
  expect_error<fg::graph_error>([&] { y.backward(); }, {"backward()", "(3)", "gradient"});
  expect_error<fg::shape_error>([&] { y.backward(Tensor::ones({2})); }, {"(2)", "(3)"});
  EXPECT_FALSE(x.grad().defined());  // the failed calls did nothing
  // The vector-Jacobian product: dx = 2 x v.
  const Tensor v = Tensor::from({TypeParam(0.5), TypeParam(-1), TypeParam(2)}, {3});
  y.backward(v);
  expect_array_near(x.grad().eigen(), {1, -4, 12}, TestFixture::tolerance);
}

TYPED_TEST(BackwardTyped, MatrixProductVectorJacobianProduct) {
  using Tensor = typename TestFixture::Tensor;
  using M = Eigen::Matrix<TypeParam, Eigen::Dynamic, Eigen::Dynamic>;
  M w(2, 3), x(3, 2), g(2, 2);
  w << 1, -2, 0.5, 3, 0, -1;
  x << 2, 1, -1, 0.25, 4, -3;
  g << 1, 0.5, -2, 1.5;
  Tensor W = Tensor::from(w).requires_grad_();
  Tensor X = Tensor::from(x).requires_grad_();
  const Tensor Y = fg::matmul(W, X);
  EXPECT_EQ(Y.grad_fn_name(), "MmBackward");
  EXPECT_EQ(Y.shape(), (Extents{2, 2}));
  EXPECT_TRUE(Y.matrix().isApprox(w * x));
  Y.backward(Tensor::from(g));
  // Independent Eigen computation: dW = G X^T, dX = W^T G.
  EXPECT_TRUE(W.grad().matrix().isApprox(g * x.transpose())) << W.grad().matrix();
  EXPECT_TRUE(X.grad().matrix().isApprox(w.transpose() * g)) << X.grad().matrix();
}

TYPED_TEST(BackwardTyped, GradientsAccumulateUntilZeroGrad) {
  using Tensor = typename TestFixture::Tensor;
  Tensor x = TestFixture::param({1, 2});
  const auto loss = [&] { return Tensor(fg::sum(x * x)); };  // a fresh graph each time: 2x
  loss().backward();
  expect_array_near(x.grad().eigen(), {2, 4});
  loss().backward();
  expect_array_near(x.grad().eigen(), {4, 8});
  Tensor(fg::sum(TypeParam(3) * x)).backward();
  expect_array_near(x.grad().eigen(), {7, 11});
  x.zero_grad();
  EXPECT_FALSE(x.grad().defined());
  loss().backward();
  expect_array_near(x.grad().eigen(), {2, 4});
}

// a = x^2, b = a + x, c = sum(a b): c = sum(x^4 + x^3), dc/dx = 4 x^3 + 3 x^2.
TYPED_TEST(BackwardTyped, DiamondSumsBothPaths) {
  using Tensor = typename TestFixture::Tensor;
  Tensor x = TestFixture::param({1, 2, -1.5});
  const Tensor a = x * x;
  const Tensor b = a + x;
  const Tensor c = fg::sum(a * b);
  c.backward();
  expect_array_near(x.grad().eigen(), {7, 44, -6.75}, TestFixture::tolerance);
  EXPECT_NEAR(double(c.item()), (1 + 1) + (16 + 8) + (5.0625 - 3.375), TestFixture::tolerance);
  // The same with one node per operation.
  x.zero_grad();
  const Tensor ta = fg::taped(x * x);
  const Tensor tc = fg::taped(fg::sum(ta * (ta + x)));
  tc.backward();
  expect_array_near(x.grad().eigen(), {7, 44, -6.75}, TestFixture::tolerance);
}

// Paths of different lengths to one node: a = 2x, b = 3a, c = b + a = 8x, d = sum(c^2) = sum(64 x^2).
TYPED_TEST(BackwardTyped, SharedSubgraphWithPathsOfDifferentLengths) {
  using Tensor = typename TestFixture::Tensor;
  Tensor x = TestFixture::param({0.5, -1});
  const Tensor a = x * TypeParam(2);
  const Tensor b = a * TypeParam(3);
  const Tensor c = b + a;
  const Tensor d = fg::sum(c * c);
  d.backward();
  expect_array_near(x.grad().eigen(), {64, -128}, TestFixture::tolerance);
}

TYPED_TEST(BackwardTyped, TensorUsedTwiceInOneExpression) {
  using Tensor = typename TestFixture::Tensor;
  Tensor x = TestFixture::param({0.5, -2});
  Tensor(fg::sum(x * x)).backward();  // 2x
  expect_array_near(x.grad().eigen(), {1, -4}, TestFixture::tolerance);
  x.zero_grad();
  Tensor(fg::sum(x * fg::sin(x))).backward();  // sin x + x cos x
  const double x0 = 0.5, x1 = -2;
  expect_array_near(x.grad().eigen(), {std::sin(x0) + x0 * std::cos(x0), std::sin(x1) + x1 * std::cos(x1)},
                    TestFixture::tolerance * 4);
  // A computed tensor used twice: a = x^2, sum(a + a) = 2 sum(x^2), d/dx = 4x.
  x.zero_grad();
  const Tensor a = x * x;
  Tensor(fg::sum(a + a)).backward();
  expect_array_near(x.grad().eigen(), {2, -8}, TestFixture::tolerance);
}

// --- retain_graph -------------------------------------------------------------------------------

TEST(RetainGraph, SecondBackwardWithoutRetainThrows) {
  Tensor x = Tensor::from({1.0, 2.0}, {2}).requires_grad_();
  const Tensor fused = fg::sum(fg::sin(x) * x);
  fused.backward();
  expect_error<fg::graph_error>([&] { fused.backward(); }, {"freed", "retain_graph=true"});
  const Tensor taped = fg::taped(fg::sum(fg::sin(x) * x));
  taped.backward();
  expect_error<fg::graph_error>([&] { taped.backward(); }, {"freed", "retain_graph=true"});
  const Tensor y = x * x;  // a non-scalar root with an explicit gradient
  y.backward(Tensor::ones({2}));
  expect_error<fg::graph_error>([&] { y.backward(Tensor::ones({2})); }, {"MulBackward", "retain_graph=true"});
}

TEST(RetainGraph, RetainedGraphRunsAgainAndAccumulates) {
  Tensor x = Tensor::from({1.0, 2.0}, {2}).requires_grad_();
  const Tensor loss = fg::taped(fg::sum(x * x * x));  // 3x^2 = (3, 12)
  loss.backward({.retain_graph = true});
  expect_array_near(x.grad().eigen(), {3, 12});
  loss.backward({.retain_graph = true});
  expect_array_near(x.grad().eigen(), {6, 24});
  loss.backward();  // this one frees
  expect_array_near(x.grad().eigen(), {9, 36});
  expect_error<fg::graph_error>([&] { loss.backward(); }, {"retain_graph=true"});
  expect_array_near(x.grad().eigen(), {9, 36});
}

TEST(RetainGraph, FreeingOneGraphLeavesAnUnrelatedGraphOnTheSameLeaves) {
  Tensor x = Tensor::from({0.5, 1.5}, {2}).requires_grad_();
  const Tensor l1 = fg::sum(x * x);
  const Tensor l2 = fg::sum(fg::sin(x));
  const Tensor l3 = fg::taped(fg::sum(fg::exp(x) * x));
  l1.backward();
  l2.backward();
  l3.backward();
  // 2x + cos x + (1 + x) e^x
  const auto expected = [](double v) { return 2 * v + std::cos(v) + (1 + v) * std::exp(v); };
  expect_array_near(x.grad().eigen(), {expected(0.5), expected(1.5)}, 1e-14);
}

TEST(RetainGraph, FreeingAGraphFreesTheSharedIntermediateToo) {
  // As in PyTorch: l1 and l2 share the node of a; l1's backward frees it.
  Tensor x = Tensor::from({0.5, 2.0}, {2}).requires_grad_();
  const Tensor a = x * x;
  const Tensor l1 = fg::sum(a);
  const Tensor l2 = fg::sum(a * a);
  l1.backward();
  expect_error<fg::graph_error>([&] { l2.backward(); }, {"MulBackward", "retain_graph=true"});
  // Retaining the first keeps the shared part: d/dx (sum x^2 + sum x^4) = 2x + 4x^3.
  x.zero_grad();
  const Tensor b = x * x;
  const Tensor m1 = fg::sum(b);
  const Tensor m2 = fg::sum(b * b);
  m1.backward({.retain_graph = true});
  m2.backward();
  expect_array_near(x.grad().eigen(), {1 + 0.5, 4 + 32});
}

// --- lifetimes: a node and its output share one allocation, whose parts die at different times --

TEST(Lifetimes, ANodeOutlivesItsOutputTensor) {
  // The tensor y is dropped as soon as z is recorded; its node lives on, reached from z.
  Tensor x = Tensor::from({0.5, 2.0}, {2}).requires_grad_();
  Tensor z;
  {
    const Tensor y = fg::taped(fg::sin(x) * x);
    z = fg::taped(fg::sum(y * 3.0));
  }
  z.backward();
  // d/dx 3 x sin x = 3 (sin x + x cos x)
  const auto expected = [](double v) { return 3 * (std::sin(v) + v * std::cos(v)); };
  expect_array_near(x.grad().eigen(), {expected(0.5), expected(2.0)}, 1e-14);
}

TEST(Lifetimes, DetachedValuesOutliveTheirNodeAndTensor) {
  Tensor x = Tensor::from({1.0, 2.0, 3.0, 4.0, 5.0}, {5}).requires_grad_();
  Tensor w = Tensor::scalar(0.5).requires_grad_();
  Tensor detached, scalar;
  {
    const Tensor y = fg::taped(x * x);             // more values than a small buffer holds inline
    const Tensor c = fg::taped(fg::exp(w) * 2.0);  // one value, held inline
    detached = y.detach();
    scalar = c.detach();
    const Tensor loss = fg::sum(y * c);
    loss.backward();  // frees the graph as it goes
  }
  // The tensors and their nodes are gone; the detached handles still own the values.
  expect_array_near(detached.eigen(), {1, 4, 9, 16, 25});
  EXPECT_DOUBLE_EQ(scalar.item(), 2 * std::exp(0.5));
  detached.mutable_eigen()[0] = -1;
  EXPECT_EQ(detached.eigen()[0], -1.0);
  // d/dx sum(x^2 c) = 2 x c;  d/dw = sum(x^2) 2 e^w
  const double c = 2 * std::exp(0.5);
  expect_array_near(x.grad().eigen(), {2 * c, 4 * c, 6 * c, 8 * c, 10 * c}, 1e-14);
  EXPECT_NEAR(w.grad().item(), 55 * c, 1e-12);
}

// --- retain_grad --------------------------------------------------------------------------------

TEST(RetainGrad, IntermediateKeepsItsGradient) {
  Tensor x = Tensor::from({1.0, 2.0, 3.0}, {3}).requires_grad_();
  Tensor a = x * x;
  a.retain_grad();
  const Tensor b = x * x;  // the same without retain_grad
  const Tensor loss = fg::sum(a * 3.0 + b);
  loss.backward({.retain_graph = true});
  expect_array_near(a.grad().eigen(), {3, 3, 3});
  EXPECT_FALSE(b.grad().defined());
  expect_array_near(x.grad().eigen(), {8, 16, 24});  // 6x + 2x
  loss.backward();
  expect_array_near(a.grad().eigen(), {6, 6, 6});  // accumulates like a leaf's
}

TEST(RetainGrad, RootKeepsItsGradientOfOne) {
  // PyTorch: y.retain_grad(); y.backward() leaves y.grad == 1.
  Tensor x = Tensor::scalar(2.0).requires_grad_();
  Tensor y = x * x;
  y.retain_grad();
  y.backward();
  EXPECT_EQ(x.grad().item(), 4.0);
  EXPECT_EQ(y.grad().item(), 1.0);
}

// PyTorch: "can't retain_grad on Tensor that has requires_grad=False". Nothing changes.
TEST(RetainGrad, ATensorThatTakesNoGradientRefuses) {
  Tensor c = Tensor::from({1.0, 2.0}, {2});
  const Tensor d = c * 2.0;
  expect_error<fg::graph_error>([&] { c.retain_grad(); },
                                {"retain_grad()", "does not require grad", "requires_grad_()"});
  expect_error<fg::graph_error>([&] { (void)Tensor(d).retain_grad(); }, {"retain_grad()"});
  c.requires_grad_();
  const Tensor loss = fg::sum(c * 2.0);
  loss.backward();
  expect_array_near(c.grad().eigen(), {2, 2});
}

// --- in-place modification of saved tensors ----------------------------------------------------

TEST(Versions, InPlaceChangeOfASavedTensorMakesBackwardThrow) {
  Tensor x = Tensor::from({1.0, 2.0}, {2}).requires_grad_();
  Tensor c = Tensor::from({3.0, 4.0}, {2});
  const Tensor m = x * c;  // MulBackward reads c
  const Tensor loss = fg::sum(m);
  c.mutable_eigen()[0] = 5;  // c takes no gradient: writable, but m's node read it
  expect_error<fg::graph_error>([&] { loss.backward(); }, {"MulBackward", "modified in place"});

  // A parameter stepped before backward (the optimiser-order mistake).
  Tensor w = Tensor::from({1.0, 2.0}, {2}).requires_grad_();
  const Tensor l2 = fg::sum(fg::sin(w) * w);
  {
    fg::NoGradGuard guard;
    w.sub_(Tensor::ones({2}), 0.1);
  }
  expect_error<fg::graph_error>([&] { l2.backward(); }, {"FusedBackward", "modified in place"});
  // A tensor with a name is named by it, beside the letter the node's expression gives it.
  Tensor named = Tensor::from({1.0, 2.0}, {2}).requires_grad_().name("weights");
  const Tensor l4 = fg::sum(fg::sin(named) * c);
  {
    fg::NoGradGuard guard;
    named.fill_(0.5);
  }
  expect_error<fg::graph_error>([&] { l4.backward(); },
                                {"tensor 'weights' ('a' in FusedBackward = sum((sin(a) * b)))", "modified in place"});
  named.name("");  // an empty name is no name
  expect_error<fg::graph_error>([&] { l4.backward(); },
                                {"tensor 'a' of FusedBackward = sum((sin(a) * b))", "modified in place"});
  // A number in the node's expression reads as the value it holds, to the last digit.
  Tensor scaled = Tensor::from({1.0, 2.0}, {2}).requires_grad_();
  const Tensor l5 = fg::sum(fg::sin(scaled) * 0.99999999);
  {
    fg::NoGradGuard guard;
    scaled.fill_(0.5);
  }
  expect_error<fg::graph_error>([&] { l5.backward(); }, {"FusedBackward = sum((sin(a) * 0.99999999))"});

  // Recording after the change is fine: d/dw sum(w^2) = 2w = (1.8, 3.8).
  const Tensor l3 = fg::sum(w * w);
  l3.backward();
  expect_array_near(w.grad().eigen(), {1.8, 3.8}, 1e-15);
}

// As in PyTorch, an operand may change in place before backward where the node's VJP reads no values: a sum, a
// subtraction (their gradients are 1 and -1 whatever the values are). A deferred sum keeps its value at recording.
TEST(Versions, AnOpWhoseGradientReadsNoValuesAllowsAnInPlaceChange) {
  Tensor x = Tensor::from({1.0, 2.0}, {2}).requires_grad_();
  Tensor c = Tensor::from({3.0, 4.0}, {2});
  const Tensor s = fg::sum(x);          // SumBackward, its value deferred
  const Tensor t = fg::taped(x - c);    // SubBackward
  const Tensor total = s + fg::sum(t);  // reads s and t, which do not change
  {
    fg::NoGradGuard guard;
    x.sub_(Tensor::ones({2}), 0.5);
  }
  c.mutable_eigen()[0] = 5;
  total.backward();
  expect_array_near(x.grad().eigen(), {2.0, 2.0});
  EXPECT_EQ(s.item(), 3.0);
  // A product's VJP reads the other operand, and where's its condition: there a change is refused.
  const Tensor m = fg::taped(x * c);
  c.mutable_eigen()[1] = 6;
  expect_error<fg::graph_error>([&] { fg::Tensor(fg::sum(m)).backward(); }, {"MulBackward", "modified in place"});
  Tensor condition = Tensor::from({1.0, 0.0}, {2});
  const Tensor picked = fg::taped(fg::where(condition, x, c));
  condition.mutable_eigen()[1] = 1;  // would send dy to x where it went to c
  expect_error<fg::graph_error>([&] { fg::Tensor(fg::sum(picked)).backward(); },
                                {"WhereBackward", "modified in place"});
}

// The stale node is found before any gradient moves: the branch that is still valid (exp(w))
// adds nothing to w.grad() when the backward as a whole throws.
TEST(Versions, AStaleNodeStopsTheBackwardBeforeAnyGradientMoves) {
  Tensor w = Tensor::from({0.5, -1.0}, {2}).requires_grad_();
  Tensor c = Tensor::from({3.0, 4.0}, {2});
  const Tensor valid = fg::taped(fg::sum(fg::exp(w)));  // a chain of nodes that would run first
  const Tensor stale = fg::sum(w * c);
  const Tensor loss = valid + stale;
  c.mutable_eigen()[1] = 7;
  expect_error<fg::graph_error>([&] { loss.backward(); }, {"modified in place"});
  EXPECT_FALSE(w.grad().defined());
}

TEST(Versions, ABackwardStoppedHalfWayLeavesTheSharedPartRunnable) {
  // The stopped backward has already counted the shared node a (it is reached first) when it
  // meets the stale node b; a later backward through a must count afresh.
  Tensor x = Tensor::from({1.0, 2.0}, {2}).requires_grad_();
  Tensor c = Tensor::from({3.0, 4.0}, {2});
  const Tensor a = fg::taped(x * x);
  const Tensor b = a * c;
  const Tensor stopped = fg::taped(fg::sum(b * a));
  c.mutable_eigen()[0] = 5;
  expect_error<fg::graph_error>([&] { stopped.backward(); }, {"modified in place"});
  EXPECT_FALSE(x.grad().defined());
  const Tensor loss = fg::sum(a * 3.0);
  loss.backward();
  expect_array_near(x.grad().eigen(), {6.0, 12.0});  // d/dx 3 x^2
}

// A backward adds into a gradient that grad() handed out in place, as PyTorch does: a value recorded over it and
// deferred stays the value at recording, and a node that saved it refuses to run backward with the new values.
TEST(Versions, AccumulatingIntoAGradientIsAnInPlaceWrite) {
  Tensor x = Tensor::from({1.0, 2.0}, {2}).requires_grad_();
  Tensor w = Tensor::from({3.0, 4.0}, {2}).requires_grad_();
  Tensor(fg::sum(x * x)).backward();  // x.grad = 2x = (2, 4)
  const Tensor g = x.grad();
  const Tensor deferred = fg::sum(g * w);  // 2 * 3 + 4 * 4 = 22, not computed yet
  const Tensor saved = fg::taped(g * w);   // MulBackward saves g
  Tensor(fg::sum(x * x)).backward();       // x.grad = (4, 8), in place
  expect_array_near(g.eigen(), {4.0, 8.0});
  EXPECT_DOUBLE_EQ(deferred.item(), 22.0);
  expect_error<fg::graph_error>([&] { saved.backward(Tensor::ones({2})); }, {"MulBackward", "modified in place"});
  EXPECT_FALSE(w.grad().defined());
  // A retained gradient is written in place likewise.
  Tensor y = x * 3.0;
  y.retain_grad();
  const Tensor l = fg::sum(y * y);
  l.backward(fg::BackwardOptions{.retain_graph = true});  // y.grad = 2y = (6, 12)
  const Tensor yg = y.grad();
  const Tensor from_y_grad = fg::sum(yg * w);  // 6 * 3 + 12 * 4 = 66
  l.backward();
  expect_array_near(yg.eigen(), {12.0, 24.0});
  EXPECT_DOUBLE_EQ(from_y_grad.item(), 66.0);
}

TEST(Versions, ChangesAfterBackwardDoNotMatter) {
  Tensor w = Tensor::scalar(1.0).requires_grad_();
  const Tensor x = Tensor::from({1.0, 2.0}, {2});
  for (int step = 0; step < 3; ++step) {
    const Tensor loss = fg::mean(fg::square(w * x - 1.0));
    loss.backward();
    fg::NoGradGuard guard;
    w.sub_(w.grad(), 0.1);
    w.zero_grad();
  }
  // w <- w - 0.1 * mean(2 (w x - 1) x) = w - 0.1 (5w - 3) = 0.5 w + 0.3: 1 -> 0.8 -> 0.7 -> 0.65
  EXPECT_NEAR(w.item(), 0.65, 1e-15);
}

// --- anomaly mode -------------------------------------------------------------------------------

TEST(Anomaly, ForwardNanNamesTheOperation) {
  Tensor x = Tensor::from({-1.0, 2.0}, {2}).requires_grad_();
  {
    fg::DetectAnomalyGuard guard;
    expect_error<fg::value_error>([&] { const Tensor y = fg::log(x); }, {"LogBackward", "forward", "NaN"});
    expect_error<fg::value_error>([&] { const Tensor y = fg::sum(fg::log(x) * x); },
                                  {"FusedBackward", "forward", "NaN"});
    const Tensor fine = fg::log(x * x);  // finite: no complaint
    EXPECT_NEAR(fine.eigen()[1], std::log(4.0), 1e-15);
  }
  // Without the guard the NaN simply flows.
  const Tensor y = fg::log(x);
  EXPECT_TRUE(std::isnan(y.eigen()[0]));
}

TEST(Anomaly, BackwardInfinityNamesTheOperation) {
  // sqrt is finite at 0 but its derivative 1 / (2 sqrt x) is not.
  Tensor x = Tensor::from({0.0, 4.0}, {2}).requires_grad_();
  {
    fg::DetectAnomalyGuard guard;
    const Tensor y = fg::sqrt(x);
    const Tensor loss = fg::sum(y);
    EXPECT_EQ(loss.item(), 2.0);
    expect_error<fg::value_error>([&] { loss.backward(); }, {"SqrtBackward", "backward"});
  }
  x.zero_grad();
  const Tensor loss = fg::sum(fg::sqrt(x));
  loss.backward();
  EXPECT_EQ(x.grad().eigen()[0], std::numeric_limits<double>::infinity());
  EXPECT_EQ(x.grad().eigen()[1], 0.25);
}

// A backward that throws half-way frees none of the graph: the nodes that ran before the failing one (the sum's) are
// still there for a backward without the guard, as if the failed one had not run.
TEST(Anomaly, AFailedBackwardKeepsTheGraph) {
  Tensor x = Tensor::from({0.0, 4.0}, {2}).requires_grad_();
  const Tensor loss = fg::taped(fg::sum(fg::taped(fg::sqrt(x))));
  {
    fg::DetectAnomalyGuard guard;
    expect_error<fg::value_error>([&] { loss.backward(); }, {"SqrtBackward", "backward"});
  }
  EXPECT_FALSE(x.grad().defined());
  loss.backward();
  EXPECT_EQ(x.grad().eigen()[0], std::numeric_limits<double>::infinity());
  EXPECT_EQ(x.grad().eigen()[1], 0.25);
  // That backward completed and freed the graph, as usual.
  expect_error<fg::graph_error>([&] { loss.backward(); }, {"freed"});
}

// A backward that throws half-way must not leave gradients behind in nodes it did not reach:
// r = sum(p + q) sends gradients to p = 3x and q = sqrt(x); q's backward throws (infinite at 0)
// before p's runs. A later backward through p alone must give d/dx sum(p) = 3, not 3 + stale.
TEST(Anomaly, AFailedBackwardLeavesNoStaleGradientBehind) {
  Tensor x = Tensor::from({0.0, 4.0}, {2}).requires_grad_();
  const Tensor p = x * 3.0;
  const Tensor q = fg::sqrt(x);
  const Tensor r = fg::sum(p + q);
  {
    fg::DetectAnomalyGuard guard;
    expect_error<fg::value_error>([&] { r.backward(); }, {"SqrtBackward"});
  }
  x.zero_grad();
  const Tensor l = fg::sum(p);
  l.backward();
  expect_array_near(x.grad().eigen(), {3, 3});
}

// An anomaly found half-way leaves every gradient as it was: leaves' (here from an earlier
// backward) and retained intermediates'.
TEST(Anomaly, AFailedBackwardChangesNoGradient) {
  Tensor x = Tensor::from({0.0, 4.0}, {2}).requires_grad_();
  Tensor(fg::sum(x * 2.0)).backward();  // x.grad() = (2, 2)
  Tensor p = x * 3.0;
  p.retain_grad();
  const Tensor r = fg::sum(p + fg::sqrt(x));  // sqrt's derivative is infinite at 0
  {
    fg::DetectAnomalyGuard guard;
    expect_error<fg::value_error>([&] { r.backward({.retain_graph = true}); },
                                  {"FusedBackward", "sqrt(b)", "backward"});
  }
  expect_array_near(x.grad().eigen(), {2, 2});
  EXPECT_FALSE(p.grad().defined());
  // The same graph without the guard: the infinity flows, everything is accumulated.
  r.backward();
  EXPECT_EQ(x.grad().eigen()[0], std::numeric_limits<double>::infinity());
  EXPECT_EQ(x.grad().eigen()[1], 2.0 + 3.0 + 0.25);
  expect_array_near(p.grad().eigen(), {1, 1});
}

// A guarded backward commits every gradient or none: a deferred value that reads one leaf's gradient fails (NaN
// under the guard) before any other leaf's gradient counts a write, so the graphs that saved the others still run.
// (The leaves are committed in no fixed order; with 16 of them, a commit that counted writes as it went would have
// counted one before the failing leaf almost always.)
TEST(Anomaly, AFailedCommitCountsNoWrite) {
  constexpr int n = 16;
  std::vector<Tensor> xs;
  for (int k = 0; k < n; ++k) xs.push_back(Tensor::from({1.0 + k}, {1}).requires_grad_());
  const auto loss_of = [&] {
    Tensor loss = fg::sum(xs[0] * xs[0]);
    for (int k = 1; k < n; ++k) loss = loss + fg::sum(xs[k] * xs[k]);
    return loss;
  };
  loss_of().backward();
  const Tensor p = Tensor::scalar(1.0).requires_grad_();
  std::vector<Tensor> readers;  // each saves a gradient: a write to it would be refused
  for (int k = 0; k + 1 < n; ++k) readers.push_back(fg::taped(xs[k].grad() * p));
  const Tensor deferred = fg::sum(fg::log(xs[n - 1].grad() - 100.0) * p);  // NaN once computed
  const Tensor loss = loss_of();
  {
    fg::DetectAnomalyGuard guard;
    expect_error<fg::value_error>([&] { loss.backward({.retain_graph = true}); }, {"NaN or infinity"});
  }
  for (int k = 0; k < n; ++k) EXPECT_EQ(xs[k].grad().item(), 2.0 * (1.0 + k));
  for (const Tensor& reader : readers) fg::taped(fg::sum(reader)).backward();  // no gradient counted a write
  EXPECT_EQ(p.grad().item(), 2.0 * (n - 1) * n / 2);
  (void)deferred;
}

// Under the guard an in-place write first computes the deferred values that read the tensor: one that is not finite
// stops the write, whose error says so, and the tensor keeps its values. Outside the guard the write goes ahead, after
// the value is computed from the values it read.
TEST(Anomaly, AnInPlaceWriteStoppedByADeferredValueSaysSo) {
  Tensor x = Tensor::from({-1.0, 2.0}, {2});
  const Tensor w = Tensor::from({1.0, 1.0}, {2}).requires_grad_();
  const Tensor s = fg::sum(fg::log(x) * w);  // deferred: NaN once computed
  {
    fg::DetectAnomalyGuard guard;
    expect_error<fg::value_error>([&] { x.fill_(1.0); },
                                  {"fusegrad::Tensor::fill_(): not written, the tensor is unchanged", "NaN or infinity",
                                   "computed before the write"});
  }
  expect_array_near(x.eigen(), {-1.0, 2.0});
  x.fill_(1.0);
  expect_array_near(x.eigen(), {1.0, 1.0});
  EXPECT_TRUE(std::isnan(s.item()));
}

// An op of a user's whose VJP throws once `failures_from` of its blocks have run (2x, with the VJP 2 dy).
int doubling_calls = 0, doubling_failures_from = 1 << 30;
struct failing_double_op {
  static constexpr std::string_view name = "failing_double";
  static constexpr std::string_view backward_name = "FailingDoubleBackward";
  static constexpr fg::vjp_needs needs = fg::vjp_needs::none;
  static auto value(const auto& x) { return x * 2; }
  static auto vjp(const auto& dy, const auto& /*x*/, const auto& /*y*/) {
    if (++doubling_calls > doubling_failures_from) throw std::runtime_error("failing_double: its VJP failed");
    return dy * 2;
  }
};
auto failing_double(fg::Differentiable auto&& x) {
  return fg::detail::make_unary<failing_double_op>(std::forward<decltype(x)>(x));
}

// A node that fails part-way outside the guard may have added part of its gradients; run again, it would add them
// twice. It refuses to, saying why, as does every backward that would run it.
TEST(Anomaly, ANodeThatFailedPartWayRefusesToRunAgain) {
  Tensor x = Tensor::from(Eigen::ArrayXd::LinSpaced(64, 0, 63)).requires_grad_();
  Tensor w = Tensor::full({64}, 0.5).requires_grad_();
  const Tensor loss = fg::sum(w * x + failing_double(x));  // one node, swept block by block
  doubling_calls = 0;
  doubling_failures_from = 2;
  expect_error<std::runtime_error>([&] { loss.backward({.retain_graph = true}); }, {"its VJP failed"});
  doubling_failures_from = 1 << 30;
  EXPECT_EQ(loss.item(), 0.5 * 2016 + 2 * 2016);  // the deferred value is still there: it reads no gradient
  expect_error<fg::graph_error>([&] { loss.backward(); }, {"failed inside", "partial", "zero_grad"});
  expect_error<fg::graph_error>([&] { (void)fg::grad(loss, {x}); }, {"failed inside"});
  // Recorded again, the graph runs: the gradients from zero are 0.5 + 2 and x.
  x.zero_grad();
  w.zero_grad();
  Tensor(fg::sum(w * x + failing_double(x))).backward();
  EXPECT_EQ(x.grad().eigen()[10], 2.5);
  EXPECT_EQ(w.grad().eigen()[10], 10.0);
}

TEST(Anomaly, GuardIsPerThread) {
  fg::DetectAnomalyGuard guard;
  bool threw_there = false;
  std::thread other([&] {
    Tensor x = Tensor::scalar(-1.0).requires_grad_();
    try {
      const Tensor y = fg::log(x);
    } catch (const fg::value_error&) {
      threw_there = true;
    }
  });
  other.join();
  EXPECT_FALSE(threw_there);
}

// --- names --------------------------------------------------------------------------------------

TEST(GradFnName, SingleOperationsAreNamedLikePyTorch) {
  Tensor x = Tensor::from({0.5, 1.0}, {2}).requires_grad_();
  Tensor y = Tensor::from({2.0, 3.0}, {2}).requires_grad_();
  Tensor m = Tensor::from({1.0, 2.0, 3.0, 4.0}, {2, 2}).requires_grad_();
  EXPECT_EQ(x.grad_fn_name(), "");  // a leaf
  EXPECT_EQ(Tensor(x * y).grad_fn_name(), "MulBackward");
  EXPECT_EQ(Tensor(x * 2.0).grad_fn_name(), "MulBackward");
  EXPECT_EQ(Tensor(x + y).grad_fn_name(), "AddBackward");
  EXPECT_EQ(Tensor(x - y).grad_fn_name(), "SubBackward");
  EXPECT_EQ(Tensor(x / y).grad_fn_name(), "DivBackward");
  EXPECT_EQ(Tensor(-x).grad_fn_name(), "NegBackward");
  EXPECT_EQ(Tensor(fg::exp(x)).grad_fn_name(), "ExpBackward");
  EXPECT_EQ(Tensor(fg::log(x)).grad_fn_name(), "LogBackward");
  EXPECT_EQ(Tensor(fg::sin(x)).grad_fn_name(), "SinBackward");
  EXPECT_EQ(Tensor(fg::tanh(x)).grad_fn_name(), "TanhBackward");
  EXPECT_EQ(Tensor(fg::square(x)).grad_fn_name(), "PowBackward");  // PyTorch records x**2 as PowBackward0
  EXPECT_EQ(Tensor(fg::pow(x, y)).grad_fn_name(), "PowBackward");
  EXPECT_EQ(Tensor(fg::sum(x)).grad_fn_name(), "SumBackward");
  EXPECT_EQ(Tensor(fg::mean(x)).grad_fn_name(), "MeanBackward");
  EXPECT_EQ(Tensor(fg::matmul(m, m)).grad_fn_name(), "MmBackward");
  EXPECT_EQ(Tensor(fg::transpose(m)).grad_fn_name(), "TBackward");
}

TEST(GradFnName, ChainsAreOneFusedNodeUnlessTaped) {
  Tensor x = Tensor::from({0.5, 1.0}, {2}).requires_grad_();
  const Tensor c = Tensor::from({2.0, 3.0}, {2});
  EXPECT_EQ(Tensor(fg::sin(x) * c).grad_fn_name(), "FusedBackward");
  EXPECT_EQ(Tensor(fg::mean(fg::square(x - c))).grad_fn_name(), "FusedBackward");
  EXPECT_EQ(fg::taped(fg::sin(x) * c).grad_fn_name(), "MulBackward");
  EXPECT_EQ(fg::taped(fg::mean(fg::square(x - c))).grad_fn_name(), "MeanBackward");
  // A chain over constants only is not recorded at all.
  EXPECT_EQ(Tensor(fg::sin(c) * c).grad_fn_name(), "");
}

}  // namespace
