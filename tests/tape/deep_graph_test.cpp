// tape/deep_graph_test.cpp -- a million-node chain (backward and destruction need no stack), a chain that changes
// scalar type at every step, and wide graphs.
#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <fusegrad/fusegrad.hpp>

#include "support/expect_array.hpp"

namespace {

namespace fg = fusegrad;
using fg::Tensor;
using fg::test::expect_array_near;

// Deep enough that a recursive backward or a recursive destructor would overflow any default
// stack (8 MiB / 1e6 leaves 8 bytes per level); each step is one recorded MulBackward node.
// Unoptimised builds (the dev and sanitize presets) run some 15 times slower, so they use a
// fifth of it: 200,000 levels still overflow 8 MiB, as every level takes several stack frames.
#if defined(__OPTIMIZE__)
constexpr std::size_t chain_length = 1'000'000;
constexpr std::size_t wide_terms = 100'000;
constexpr std::size_t round_trips = 100'000;
#else
constexpr std::size_t chain_length = 200'000;
constexpr std::size_t wide_terms = 20'000;
constexpr std::size_t round_trips = 10'000;
#endif
constexpr double factor = 1.000001;  // factor^N = e^(N log factor), at most ~2.7183: representable

// sum_{i < n} a_i with a_i = (i mod 7) + 1: 28 per full cycle of 7, then 1 + 2 + ... + r.
constexpr double sum_of_factors(std::size_t n) {
  const std::size_t r = n % 7;
  return double(n / 7 * 28 + r * (r + 1) / 2);
}
static_assert(sum_of_factors(100'000) == 399995);  // 14285 * 28 + 15
static_assert(sum_of_factors(20'000) == 79997);    // 2857 * 28 + 1

// y_0 = x, y_{k+1} = y_k * c: dy_N/dx = c^N. Rounding: each of the N products adds at most
// half an ulp, so the relative error is below N * 2^-53 ~ 1.1e-10.
Tensor chain(const Tensor& x, const Tensor& c) {
  Tensor y = x;
  for (std::size_t k = 0; k < chain_length; ++k) y = y * c;
  return y;
}

TEST(DeepGraph, LongChainBackpropagatesAndIsDroppedIteratively) {
  const double expected = std::pow(factor, double(chain_length));
  Tensor x = Tensor::scalar(0.5).requires_grad_();
  const Tensor c = Tensor::scalar(factor);
  {
    const Tensor y = chain(x, c);
    EXPECT_EQ(y.grad_fn_name(), "MulBackward");
    EXPECT_NEAR(y.item(), 0.5 * expected, 0.5 * expected * 1e-9);
    y.backward();  // frees the saved values as it goes; the nodes stay linked until y dies
    EXPECT_NEAR(x.grad().item(), expected, expected * 1e-9);
  }  // the whole chain is released here, in a loop
  EXPECT_TRUE(x.is_leaf());
  EXPECT_EQ(x.item(), 0.5);
}

TEST(DeepGraph, LongChainIsDroppedWithoutBackward) {
  Tensor x = Tensor::scalar(0.5).requires_grad_();
  const Tensor c = Tensor::scalar(factor);
  { const Tensor y = chain(x, c); }  // every node still holds its inputs: the full graph is released
  EXPECT_FALSE(x.grad().defined());
  // The leaves survive the graph and can start a new one.
  const Tensor z = x * c;
  z.backward();
  EXPECT_EQ(x.grad().item(), factor);
}

// A graph that changes scalar type at every step: y_(k+1) = float(y_k) * 2, cast back to double, * 0.5. Every cast
// starts one more backward pass over the graph of the other type, and every walk over the graph (the check before a
// backward, fg::grad's, the release after it, fg::to_dot) crosses it: a few thousand such changes in nested calls
// overflow the stack. Powers of two and casts of 0.5 are exact, so y = x and dy/dx = 1 exactly.
TEST(DeepGraph, LongChainThroughCastsNeedsNoStack) {
  Tensor x = Tensor::scalar(0.5).requires_grad_();
  {
    Tensor y = x;
    fg::FloatTensor first_step;
    for (std::size_t k = 0; k < round_trips; ++k) {
      const fg::FloatTensor f = y.to<float>() * 2.0f;
      if (k == 0) first_step = f;
      y = f.to<double>() * 0.5;
    }
    EXPECT_EQ(y.item(), 0.5);
    EXPECT_EQ(fg::grad(y, {x}, {.retain_graph = true})[0].item(), 1.0);
    EXPECT_FALSE(x.grad().defined());  // fg::grad adds to no tensor's gradient
    const std::string dot = fg::to_dot(y);
    std::size_t casts = 0;
    for (std::size_t at = dot.find("ToCopyBackward"); at != std::string::npos; at = dot.find("ToCopyBackward", at + 1))
      ++casts;
    EXPECT_EQ(casts, 2 * round_trips);
    {
      const fg::DetectAnomalyGuard anomaly;  // staged: each pass adds its gradients once the passes after it end
      y.backward({.retain_graph = true});
    }
    EXPECT_EQ(x.grad().item(), 1.0);
    y.backward();  // without retain_graph: releases the graphs of both types, down to the first cast
    EXPECT_EQ(x.grad().item(), 2.0);
    EXPECT_THROW(first_step.backward(), fg::graph_error);
  }  // the chain is dropped here, in a loop
  EXPECT_TRUE(x.is_leaf());
  EXPECT_EQ(x.grad().item(), 2.0);
}

// Many small nodes side by side: t_i = x a_i with a_i = (i mod 7) + 1, added pairwise into a
// tree. d/dx sum_i t_i = sum_i a_i (399995 for 100000 terms).
TEST(WideGraph, SumOfManySmallNodes) {
  constexpr std::size_t terms = wide_terms;
  constexpr double total_factor = sum_of_factors(terms);
  Tensor x = Tensor::from({0.5, -2.0}, {2}).requires_grad_();
  std::vector<Tensor> level;
  level.reserve(terms);
  for (std::size_t i = 0; i < terms; ++i) level.push_back(x * double(i % 7 + 1));
  while (level.size() > 1) {
    std::vector<Tensor> next;
    next.reserve(level.size() / 2 + 1);
    for (std::size_t i = 0; i + 1 < level.size(); i += 2) next.push_back(level[i] + level[i + 1]);
    if (level.size() % 2) next.push_back(level.back());
    level = std::move(next);
  }
  const Tensor total = fg::sum(level.front());
  level.clear();
  EXPECT_EQ(total.item(), (0.5 - 2.0) * total_factor);  // small integers times 0.5: exact
  total.backward();
  expect_array_near(x.grad().eigen(), {total_factor, total_factor});
}

// One node whose output has many consumers: a = x^2 feeds 100000 fused nodes acc + a * a_i, a
// chain of that depth in which every node also reads a. d/dx = 2x * sum_i a_i.
TEST(WideGraph, OneOutputWithManyConsumers) {
  constexpr std::size_t terms = wide_terms;
  constexpr double total_factor = sum_of_factors(terms);
  Tensor x = Tensor::from({0.5, -2.0}, {2}).requires_grad_();
  const Tensor a = x * x;
  Tensor acc = Tensor::zeros({2});
  for (std::size_t i = 0; i < terms; ++i) acc = acc + a * double(i % 7 + 1);
  EXPECT_EQ(acc.grad_fn_name(), "FusedBackward");
  expect_array_near(acc.eigen(), {0.25 * total_factor, 4.0 * total_factor});
  acc.backward(Tensor::ones({2}));
  expect_array_near(x.grad().eigen(), {total_factor, -4 * total_factor});
}

}  // namespace
