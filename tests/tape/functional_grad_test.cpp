// tape/functional_grad_test.cpp -- fg::grad(output, inputs) (torch.autograd.grad), t[i], t.at() and t.clone().
#include <cmath>
#include <span>
#include <vector>

#include <gtest/gtest.h>

#include <fusegrad/fusegrad.hpp>

#include "support/expect_array.hpp"
#include "support/expect_error.hpp"

namespace {

namespace fg = fusegrad;
using fg::Extents;
using fg::test::expect_array_near;
using fg::test::expect_error;

// L = sum(w * x + b)^2 ... closed forms: dL/dw = 2 s x, dL/db = 2 s n, with s = sum(w x + b).
TEST(FunctionalGrad, ReturnsTheGradientsAndLeavesGradUntouched) {
  fg::Tensor w = fg::Tensor::from({1.0, -2.0, 0.5}, {3}).requires_grad_();
  fg::Tensor b = fg::Tensor::scalar(0.25).requires_grad_();
  const fg::Tensor x = fg::Tensor::from({2.0, 1.0, 4.0}, {3});
  const fg::Tensor s = fg::sum(w * x + b);  // 2 - 2 + 2 + 0.75 = 2.75
  const fg::Tensor loss = fg::square(s);
  const std::vector<fg::Tensor> g = fg::grad(loss, {w, b});
  ASSERT_EQ(g.size(), 2u);
  expect_array_near(g[0].eigen(), {2 * 2.75 * 2, 2 * 2.75 * 1, 2 * 2.75 * 4});
  EXPECT_DOUBLE_EQ(g[1].item(), 2 * 2.75 * 3);
  EXPECT_EQ(g[0].shape(), w.shape());
  EXPECT_FALSE(w.grad().defined());  // nothing accumulated
  EXPECT_FALSE(b.grad().defined());
  EXPECT_FALSE(g[0].requires_grad());
  // Without retain_graph the graph is freed, as after backward().
  expect_error<fg::graph_error>([&] { (void)fg::grad(loss, {w}); }, {"freed", "fg::grad(loss, {w}, {.retain_graph"});
  expect_error<fg::graph_error>([&] { loss.backward(); }, {"freed", "retain_graph"});
}

// An intermediate tensor as an input: the gradient that reaches it, not its inputs'.
TEST(FunctionalGrad, AnIntermediateTensorGetsTheGradientReachingIt) {
  fg::Tensor x = fg::Tensor::from({1.0, 2.0}, {2}).requires_grad_();
  const fg::Tensor h = fg::taped(x * x);     // (1, 4)
  const fg::Tensor y = fg::sum(fg::exp(h));  // dy/dh = exp(h)
  const auto g = fg::grad(y, {h, x}, {.retain_graph = true});
  expect_array_near(g[0].eigen(), {std::exp(1.0), std::exp(4.0)}, 1e-15);
  expect_array_near(g[1].eigen(), {std::exp(1.0) * 2, std::exp(4.0) * 4}, 1e-15);
  // The graph was kept: backward still runs, and only it fills .grad().
  y.backward();
  expect_array_near(x.grad().eigen(), {std::exp(1.0) * 2, std::exp(4.0) * 4}, 1e-15);
}

TEST(FunctionalGrad, ANonScalarOutputTakesItsUpstreamGradient) {
  fg::Tensor x = fg::Tensor::from({1.0, 2.0, 3.0}, {3}).requires_grad_();
  const fg::Tensor y = fg::square(x);
  const fg::Tensor upstream = fg::Tensor::from({1.0, 0.5, -1.0}, {3});
  expect_array_near(fg::grad(y, {x}, {.grad_output = upstream, .retain_graph = true})[0].eigen(), {2, 2, -6});
  expect_error<fg::graph_error>([&] { (void)fg::grad(y, {x}, {.retain_graph = true}); }, {"(3)", "grad_output"});
  expect_error<fg::shape_error>(
      [&] { (void)fg::grad(y, {x}, {.grad_output = fg::Tensor::ones({2}), .retain_graph = true}); }, {"(2)", "(3)"});
}

TEST(FunctionalGrad, UnusedAndNonDifferentiableInputsAreErrorsUnlessAllowed) {
  fg::Tensor x = fg::Tensor::scalar(2.0).requires_grad_();
  fg::Tensor unused = fg::Tensor::scalar(5.0).requires_grad_();
  const fg::Tensor constant = fg::Tensor::scalar(1.0);
  const fg::Tensor y = fg::taped(x * x);
  expect_error<fg::graph_error>(
      [&] {
        (void)fg::grad(y, {x, unused}, {.retain_graph = true});
      },
      {"input 1", "not used", "allow_unused"});
  expect_error<fg::graph_error>([&] { (void)fg::grad(y, {constant}, {.retain_graph = true}); },
                                {"input 0", "does not require grad"});
  // Refused before anything ran: without retain_graph the graph is still whole.
  expect_error<fg::graph_error>([&] { (void)fg::grad(y, {x, unused}); }, {"input 1", "not used"});
  const auto g = fg::grad(y, {x, unused}, {.allow_unused = true});
  EXPECT_EQ(g[0].item(), 4.0);
  EXPECT_FALSE(g[1].defined());
  // A leaf as the output: its own gradient is the seed.
  EXPECT_EQ(fg::grad(x, {x})[0].item(), 1.0);
}

// No inputs, or an undefined tensor, is refused before anything runs (PyTorch: "grad requires non-empty inputs"):
// the graph is still whole afterwards, and backward gives d(x^2)/dx = 4 at x = 2.
TEST(FunctionalGrad, NoInputsOrAnUndefinedTensorIsRefusedAndTheGraphKept) {
  fg::Tensor x = fg::Tensor::scalar(2.0).requires_grad_();
  const fg::Tensor y = fg::taped(x * x);
  expect_error<fg::value_error>([&] { (void)fg::grad(y, std::span<const fg::Tensor>{}); }, {"no inputs"});
  expect_error<fg::value_error>([&] { (void)fg::grad(fg::Tensor(), {x}); }, {"output is an undefined tensor"});
  expect_error<fg::value_error>([&] { (void)fg::grad(y, {x, fg::Tensor()}); }, {"input 1 is an undefined tensor"});
  y.backward();
  EXPECT_EQ(x.grad().item(), 4.0);
}

// --- t[i], t.at(), t.clone() -----------------------------------------------------------------------------------------

TEST(TensorIndexing, SubscriptSelectsAlongTheFirstAxisAndRecordsIt) {
  fg::Tensor m = fg::Tensor::from({1.0, 2.0, 3.0, 4.0, 5.0, 6.0}, {2, 3}).requires_grad_();
  const fg::Tensor row = m[1];
  EXPECT_EQ(row.shape(), (Extents{3}));
  expect_array_near(row.eigen(), {4, 5, 6});
  EXPECT_EQ(row.grad_fn_name(), "SelectBackward");
  const fg::Tensor corner = m[-1][-1];
  EXPECT_EQ(corner.shape(), Extents{});
  EXPECT_EQ(corner.item(), 6.0);
  fg::Tensor(fg::sum(row * 2.0) + corner).backward();
  expect_array_near(m.grad().eigen(), {0, 0, 0, 2, 2, 3});
  expect_error<fg::shape_error>([&] { (void)m[2]; }, {"fusegrad::select", "index 2", "extent 2"});
}

TEST(TensorIndexing, AtReadsOneElement) {
  const fg::Tensor m = fg::Tensor::from({1.0, 2.0, 3.0, 4.0, 5.0, 6.0}, {2, 3});
  EXPECT_EQ(m.at({0, 2}), 3.0);
  EXPECT_EQ(m.at({-1, 0}), 4.0);
  EXPECT_EQ(fg::Tensor::scalar(7.0).at({}), 7.0);
  expect_error<fg::shape_error>([&] { (void)m.at({0}); }, {"1 indices", "(2, 3)"});
  expect_error<fg::shape_error>([&] { (void)m.at({0, 3}); }, {"index 3", "axis 1 of extent 3"});
}

TEST(TensorIndexing, CloneIsACopyInTheGraph) {
  fg::Tensor x = fg::Tensor::from({1.0, 2.0}, {2}).requires_grad_();
  fg::Tensor c = x.clone();
  EXPECT_NE(c.data(), x.data());
  EXPECT_EQ(c.grad_fn_name(), "CloneBackward");
  {
    const fg::NoGradGuard no_grad;
    c.mul_(10.0);  // the copy changes, x does not
  }
  expect_array_near(x.eigen(), {1, 2});
  fg::Tensor(fg::sum(fg::clone(x) * 3.0)).backward();
  expect_array_near(x.grad().eigen(), {3, 3});
}

}  // namespace
