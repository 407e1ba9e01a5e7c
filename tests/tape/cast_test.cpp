// tape/cast_test.cpp -- t.to<float>() and t.to<double>(): values, gradients cast back, graphs that
// leave one scalar type and come back, fg::grad across casts, and failures that change nothing.
#include <cmath>
#include <limits>
#include <vector>

#include <gtest/gtest.h>

#include <fusegrad/fusegrad.hpp>

#include "support/expect_array.hpp"
#include "support/expect_error.hpp"

namespace {

namespace fg = fusegrad;
using fg::test::expect_error;

// Values chosen exact in float, so that every figure below is exact in both types.
TEST(Cast, DoubleToFloatCarriesTheGradientBack) {
  fg::Tensor w = fg::Tensor::from({1.5, -2.0, 0.25}, {3}).requires_grad_();
  const fg::FloatTensor f = w.to<float>();
  EXPECT_EQ(f.shape(), w.shape());
  EXPECT_TRUE(f.requires_grad());
  EXPECT_EQ(f.grad_fn_name(), "ToCopyBackward");
  EXPECT_EQ(f.at({0}), 1.5f);
  EXPECT_EQ(f.at({1}), -2.0f);
  const fg::FloatTensor loss = fg::sum(f * f);  // d/dw = 2 w
  loss.backward();
  ASSERT_TRUE(w.grad().defined());
  EXPECT_EQ(w.grad().at({0}), 3.0);
  EXPECT_EQ(w.grad().at({1}), -4.0);
  EXPECT_EQ(w.grad().at({2}), 0.5);
}

TEST(Cast, FloatToDoubleCarriesTheGradientBack) {
  fg::FloatTensor p = fg::FloatTensor::from({2.0f, -0.5f}, {2}).requires_grad_();
  const fg::Tensor d = fg::to<double>(p);
  const fg::Tensor loss = fg::sum(fg::square(d) * 3.0);  // d/dp = 6 p
  loss.backward();
  EXPECT_EQ(p.grad().at({0}), 12.0f);
  EXPECT_EQ(p.grad().at({1}), -3.0f);
}

// A double the float cannot hold is rounded to nearest; the gradient cast back is the float one.
TEST(Cast, ValuesRoundToTheNearestFloat) {
  const fg::Tensor x = fg::Tensor::from({0.1, 1e-50, 1e300}, {3});
  const fg::FloatTensor f = x.to<float>();
  EXPECT_EQ(f.at({0}), 0.1f);
  EXPECT_EQ(f.at({1}), 0.0f);
  EXPECT_TRUE(std::isinf(f.at({2})));
  EXPECT_FALSE(f.requires_grad());  // x takes no gradient: nothing recorded
}

TEST(Cast, ToItsOwnTypeIsTheSameTensor) {
  const fg::Tensor x = fg::Tensor::from({1.0, 2.0}, {2}).requires_grad_();
  EXPECT_EQ(x.to<double>().impl(), x.impl());
}

TEST(Cast, RecordsNothingWithoutGradMode) {
  fg::Tensor w = fg::Tensor::from({1.0}, {1}).requires_grad_();
  const fg::NoGradGuard no_grad;
  const fg::FloatTensor f = w.to<float>();
  EXPECT_FALSE(f.requires_grad());
  EXPECT_EQ(f.at({0}), 1.0f);
}

// One double graph cast twice, as the same tensor (a) and as one that reads it (3 a):
// loss = sum(3 a + a + a) over a = w^2 is 5 w^2, so dL/dw = 10 w; the double graph runs once.
TEST(Cast, SeveralCastsOfOneGraphAddUp) {
  fg::Tensor w = fg::Tensor::from({1.0, -2.0}, {2}).requires_grad_();
  const fg::Tensor a = w * w;
  const fg::FloatTensor loss = fg::sum(fg::to<float>(a * 3.0) + a.to<float>() + a.to<float>());
  loss.backward();
  EXPECT_EQ(w.grad().at({0}), 10.0);
  EXPECT_EQ(w.grad().at({1}), -20.0);
  // The whole graph was released, the double part too.
  expect_error<fg::graph_error>([&] { loss.backward(); }, {"freed"});
  expect_error<fg::graph_error>([&] { fg::Tensor(fg::sum(a)).backward(); }, {"freed"});
}

// Out of double and back in, beside the direct path: c = a cast there and back, loss = sum(c a)
// = sum(4 w^2) with a = 2 w, so dL/dw = 8 w; a's node gets gradient from both paths.
TEST(Cast, AGraphThatLeavesItsTypeAndComesBack) {
  fg::Tensor w = fg::Tensor::from({1.0, 3.0}, {2}).requires_grad_();
  const fg::Tensor a = w * 2.0;
  const fg::Tensor c = a.to<float>().to<double>();
  const fg::Tensor loss = fg::sum(c * a);
  loss.backward({.retain_graph = true});
  EXPECT_EQ(w.grad().at({0}), 8.0);
  EXPECT_EQ(w.grad().at({1}), 24.0);
  loss.backward();  // retained: runs again, and adds
  EXPECT_EQ(w.grad().at({0}), 16.0);
  expect_error<fg::graph_error>([&] { loss.backward(); }, {"freed"});
}

TEST(Cast, FunctionalGradFollowsCasts) {
  fg::FloatTensor p = fg::FloatTensor::from({1.0f, -2.0f}, {2}).requires_grad_();
  fg::Tensor w = fg::Tensor::from({0.5, 0.5}, {2}).requires_grad_();
  // q = 2 p w computed in double and cast back; loss = sum(q p) = sum(2 p^2 w), so dL/dp = 4 p w.
  const fg::FloatTensor q = fg::to<float>(p.to<double>() * w * 2.0);
  const fg::FloatTensor loss = fg::sum(q * p);
  const std::vector<fg::FloatTensor> g = fg::grad(loss, {p}, {.retain_graph = true});
  EXPECT_EQ(g[0].at({0}), 2.0f);
  EXPECT_EQ(g[0].at({1}), -4.0f);
  EXPECT_FALSE(p.grad().defined());  // fg::grad adds to no tensor's grad(), in either type
  EXPECT_FALSE(w.grad().defined());
  // An input reached only through a cast there and back is found, not reported unused.
  const fg::FloatTensor only_across = fg::sum(fg::to<float>(p.to<double>() * 3.0));
  const std::vector<fg::FloatTensor> h = fg::grad(only_across, {p});
  EXPECT_EQ(h[0].at({0}), 3.0f);
  EXPECT_EQ(h[0].at({1}), 3.0f);
}

// Thirty changes of type there and back, each beside the direct path: a_k = a_(k-1) + 0.5 c_k with c_k
// a_(k-1) cast to float and back, so da_30/dw = 2 * 1.5^30. Every part is checked once before the
// backward (not once per path: 2^30 of them) and the whole graph is released after it.
TEST(Cast, ManyChangesOfTypeInOneGraph) {
  fg::Tensor w = fg::Tensor::from({1.0}, {1}).requires_grad_();
  fg::Tensor a = w * 2.0;
  for (int k = 0; k < 30; ++k) a = a + a.to<float>().to<double>() * 0.5;
  const fg::Tensor loss = fg::sum(a);
  loss.backward();
  EXPECT_NEAR(w.grad().at({0}), 2 * std::pow(1.5, 30), 1e-6 * 2 * std::pow(1.5, 30));
  expect_error<fg::graph_error>([&] { loss.backward(); }, {"freed"});
}

// Anomaly mode checks the gradient a cast hands on: 1e300 fits a double, not a float.
TEST(Cast, AnomalyModeFindsAGradientThatOverflowsInTheCast) {
  fg::FloatTensor p = fg::FloatTensor::from({1.0f}, {1}).requires_grad_();
  const fg::Tensor loss = fg::sum(p.to<double>() * 1e300);
  const fg::DetectAnomalyGuard anomaly;
  expect_error<fg::value_error>([&] { loss.backward(); }, {"ToCopyBackward", "NaN or infinity"});
  EXPECT_FALSE(p.grad().defined());
}

// Under DetectAnomalyGuard the pass of this side may fail where it adds its gradients (a deferred value that reads
// one is not finite): it fails before the far side of the cast adds any of its own.
TEST(Cast, AnAnomalyWhereThisSideAddsItsGradientsChangesNoGradientOfEitherType) {
  fg::Tensor w = fg::Tensor::from({0.0, 1.0}, {2}).requires_grad_();
  fg::FloatTensor f = fg::FloatTensor::from({1.0f, 2.0f}, {2}).requires_grad_();
  const fg::FloatTensor loss = fg::sum(w.to<float>() * f);
  loss.backward({.retain_graph = true});  // f.grad() = w = (0, 1), w.grad() = f = (1, 2)
  const fg::FloatTensor v = fg::FloatTensor::ones({2}).requires_grad_();
  const fg::FloatTensor reads_a_gradient = fg::sum(fg::log(f.grad()) * v);  // recorded, its value deferred: -inf
  {
    const fg::DetectAnomalyGuard anomaly;
    expect_error<fg::value_error>([&] { loss.backward({.retain_graph = true}); }, {"NaN or infinity"});
  }
  EXPECT_EQ(w.grad().at({0}), 1.0);
  EXPECT_EQ(w.grad().at({1}), 2.0);
  EXPECT_EQ(f.grad().at({0}), 0.0f);
  EXPECT_EQ(f.grad().at({1}), 1.0f);
  EXPECT_EQ(reads_a_gradient.item(), -std::numeric_limits<float>::infinity());
}

// A staged backward (DetectAnomalyGuard) through a leaf reached directly and across a cast there and back: both
// passes add to its first gradient, d/dw sum(w * 3 + to_double(to_float(w * 2))) = 5.
TEST(Cast, AStagedBackwardAddsBothPassesToAFirstGradient) {
  fg::Tensor w = fg::Tensor::from({1.0, 2.0}, {2}).requires_grad_();
  const fg::Tensor doubled = w * 2.0;
  const fg::Tensor loss = fg::sum(w * 3.0 + doubled.to<float>().to<double>());
  const fg::DetectAnomalyGuard anomaly;
  loss.backward();
  EXPECT_EQ(w.grad().at({0}), 5.0);
  EXPECT_EQ(w.grad().at({1}), 5.0);
}

// A backward that cannot finish on the far side of a cast fails before any gradient moves.
TEST(Cast, AFreedGraphAcrossACastChangesNothing) {
  fg::Tensor w = fg::Tensor::from({1.0, 2.0}, {2}).requires_grad_();
  fg::FloatTensor v = fg::FloatTensor::from({1.0f, 1.0f}, {2}).requires_grad_();
  const fg::Tensor a = w * w;
  const fg::FloatTensor loss = fg::sum(a.to<float>() * v);
  fg::Tensor(fg::sum(a)).backward();  // frees a's node
  const fg::Tensor w_grad = w.grad().clone();
  expect_error<fg::graph_error>([&] { loss.backward(); }, {"freed"});
  EXPECT_FALSE(v.grad().defined());
  EXPECT_EQ(w.grad().at({0}), w_grad.at({0}));
}

TEST(Cast, AnInputChangedInPlaceAcrossACastChangesNothing) {
  fg::Tensor x = fg::Tensor::from({1.0, 2.0}, {2});
  fg::Tensor w = fg::Tensor::from({3.0, 4.0}, {2}).requires_grad_();
  fg::FloatTensor v = fg::FloatTensor::from({1.0f, 1.0f}, {2}).requires_grad_();
  const fg::FloatTensor loss = fg::sum(fg::to<float>(w * x) * v);
  x.add_(fg::Tensor::ones_like(x));
  expect_error<fg::graph_error>([&] { loss.backward(); }, {"modified in place"});
  EXPECT_FALSE(v.grad().defined());
  EXPECT_FALSE(w.grad().defined());
}

}  // namespace
