// nn/losses_test.cpp -- every loss with every reduction against PyTorch's value and input gradient
// (tests/data/losses/), recorded as a fused node, taped, and in the static layer; and what the losses refuse.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include <gtest/gtest.h>

#include <fusegrad/fusegrad.hpp>
#include <fusegrad/nn.hpp>

#include "data/losses/torch_reference.hpp"
#include "support/expect_error.hpp"

namespace {

namespace fg = fusegrad;
namespace nn = fusegrad::nn;
namespace ref = fusegrad::test::torch_losses;

void expect_close(std::span<const double> actual, std::span<const double> expected, const char* what) {
  ASSERT_EQ(actual.size(), expected.size()) << what;
  for (std::size_t i = 0; i < expected.size(); ++i)
    EXPECT_NEAR(actual[i], expected[i], 1e-12 * std::max(1.0, std::abs(expected[i]))) << what << ", element " << i;
}

fg::Tensor tensor_of(const double (&values)[12]) { return fg::Tensor::from(std::span<const double>(values), {4, 3}); }

// One reduction's figures from PyTorch: the loss, the upstream gradient u, d(sum(u * loss))/dx.
struct Figures {
  std::span<const double> value, upstream, grad;
};

// loss(x) recorded as one fused node and taped, its value and d(sum(u * loss))/dx against PyTorch's.
template <class Loss>
void expect_torch_figures(Loss loss, const double (&x)[12], const Figures& expected) {
  for (const bool taped : {false, true}) {
    SCOPED_TRACE(taped ? "taped" : "one fused node");
    fg::Tensor input = tensor_of(x).requires_grad_();
    const fg::Tensor out = taped ? fg::taped(loss(input)) : fg::Tensor(loss(input));
    expect_close(std::span(out.data(), out.numel()), expected.value, "value");
    out.backward(fg::Tensor::from(expected.upstream, out.shape()));
    expect_close(std::span(input.grad().data(), 12), expected.grad, "gradient");
  }
}

// call(x, reduction) with each reduction against PyTorch's figures.
template <class Call>
void expect_every_reduction(Call call, const double (&x)[12], const Figures& mean, const Figures& sum,
                            const Figures& none) {
  {
    SCOPED_TRACE("reduction mean");
    expect_torch_figures([&](const auto& in) { return call(in, nn::reduction::mean); }, x, mean);
  }
  {
    SCOPED_TRACE("reduction sum");
    expect_torch_figures([&](const auto& in) { return call(in, nn::reduction::sum); }, x, sum);
  }
  {
    SCOPED_TRACE("reduction none");
    expect_torch_figures([&](const auto& in) { return call(in, nn::reduction::none); }, x, none);
  }
}

// The static layer, mean reduction: Vars of shape (4, 3).
template <class Loss>
void expect_static_figures(Loss loss, const double (&x)[12], double value, const double (&grad)[12]) {
  fg::Var<double, fg::Shape<4, 3>> input;
  std::copy(x, x + 12, input.value().data());
  const auto [v, dx] = fg::value_and_grad(loss(input), input);
  EXPECT_NEAR(v, value, 1e-12 * std::max(1.0, std::abs(value)));
  std::vector<double> g(dx.data(), dx.data() + 12), expected(grad, grad + 12);
  for (double& e : expected) e /= 1.5;  // the fixture's upstream for a scalar loss
  expect_close(g, expected, "static gradient");
}

const fg::ConstTensor targets_y{tensor_of(ref::y)};
const fg::ConstTensor probabilities{tensor_of(ref::probabilities)};
const fg::Indices classes({ref::targets[0], ref::targets[1], ref::targets[2], ref::targets[3]});

TEST(Losses, MseMatchesPyTorch) {
  const auto mse = [](const auto& x, auto r) { return nn::mse_loss(x, targets_y, r); };
  expect_every_reduction(mse, ref::x, {ref::mse_mean_value, ref::mse_mean_upstream, ref::mse_mean_grad},
                         {ref::mse_sum_value, ref::mse_sum_upstream, ref::mse_sum_grad},
                         {ref::mse_none_value, ref::mse_none_upstream, ref::mse_none_grad});
  const fg::Const<double, fg::Shape<4, 3>> y = [] {
    fg::Const<double, fg::Shape<4, 3>> c;
    std::copy(ref::y, ref::y + 12, c.value().data());
    return c;
  }();
  expect_static_figures([&](const auto& x) { return nn::mse_loss(x, y); }, ref::x, ref::mse_mean_value[0],
                        ref::mse_mean_grad);
}
TEST(Losses, L1MatchesPyTorchWithTiesGivingZero) {
  const auto l1 = [](const auto& x, auto r) { return nn::l1_loss(x, targets_y, r); };
  expect_every_reduction(l1, ref::x, {ref::l1_mean_value, ref::l1_mean_upstream, ref::l1_mean_grad},
                         {ref::l1_sum_value, ref::l1_sum_upstream, ref::l1_sum_grad},
                         {ref::l1_none_value, ref::l1_none_upstream, ref::l1_none_grad});
}
TEST(Losses, HuberMatchesPyTorchOnBothSidesOfDelta) {
  const auto huber = [](const auto& x, auto r) { return nn::huber_loss(x, targets_y, r); };
  expect_every_reduction(huber, ref::x, {ref::huber_mean_value, ref::huber_mean_upstream, ref::huber_mean_grad},
                         {ref::huber_sum_value, ref::huber_sum_upstream, ref::huber_sum_grad},
                         {ref::huber_none_value, ref::huber_none_upstream, ref::huber_none_grad});
  const auto huber_half = [](const auto& x, auto r) { return nn::huber_loss(x, targets_y, r, 0.5); };
  expect_every_reduction(huber_half, ref::x,
                         {ref::huber_half_mean_value, ref::huber_half_mean_upstream, ref::huber_half_mean_grad},
                         {ref::huber_half_sum_value, ref::huber_half_sum_upstream, ref::huber_half_sum_grad},
                         {ref::huber_half_none_value, ref::huber_half_none_upstream, ref::huber_half_none_grad});
}
// A delta no value of the scalar type reaches (infinity; 1e39 for float) makes the loss half the squared error, its
// gradient d = x - y, as in PyTorch: 0.5 * (0.25 + 4 + 9 + 1e6) and (0.5, -2, 3, 1000), every figure exact.
template <class T>
void expect_huber_of_an_unreachable_delta(double delta) {
  const std::array<T, 4> d{T(0.5), T(-2), T(3), T(1000)};
  const T half_squares = T(0.5) * (T(0.25) + T(4) + T(9) + T(1e6));
  for (const bool taped : {false, true}) {
    SCOPED_TRACE(taped ? "taped" : "one fused node");
    auto x = fg::BasicTensor<T>::from({d[0], d[1], d[2], d[3]}, {4}).requires_grad_();
    const auto zeros = fg::BasicTensor<T>::zeros({4});
    const fg::BasicTensor<T> loss = taped ? fg::taped(nn::huber_loss(x, zeros, nn::reduction::sum, delta))
                                          : fg::BasicTensor<T>(nn::huber_loss(x, zeros, nn::reduction::sum, delta));
    EXPECT_EQ(loss.item(), half_squares);
    loss.backward();
    for (std::int64_t i = 0; i < 4; ++i) EXPECT_EQ(x.grad().data()[i], d[std::size_t(i)]) << "element " << i;
  }
  fg::Var<T, fg::Shape<4>> x;
  std::copy(d.begin(), d.end(), x.value().data());
  const auto [value, dx] =
      fg::value_and_grad(nn::huber_loss(x, fg::Const<T, fg::Shape<4>>{}, nn::reduction::sum, delta), x);
  EXPECT_EQ(value, half_squares) << "static layer";
  for (int i = 0; i < 4; ++i) EXPECT_EQ(dx[i], d[std::size_t(i)]) << "static layer, element " << i;
}
TEST(Losses, HuberWithADeltaNoValueReachesIsHalfTheSquaredError) {
  expect_huber_of_an_unreachable_delta<double>(std::numeric_limits<double>::infinity());
  expect_huber_of_an_unreachable_delta<float>(std::numeric_limits<double>::infinity());
  expect_huber_of_an_unreachable_delta<float>(1e39);
}
TEST(Losses, BceWithLogitsMatchesPyTorchAtLogitsOfAThousand) {
  const auto bce = [](const auto& x, auto r) { return nn::bce_with_logits_loss(x, probabilities, r); };
  expect_every_reduction(
      bce, ref::logits,
      {ref::bce_with_logits_mean_value, ref::bce_with_logits_mean_upstream, ref::bce_with_logits_mean_grad},
      {ref::bce_with_logits_sum_value, ref::bce_with_logits_sum_upstream, ref::bce_with_logits_sum_grad},
      {ref::bce_with_logits_none_value, ref::bce_with_logits_none_upstream, ref::bce_with_logits_none_grad});
}
// A confident right logit leaves a loss of softplus(-|x|), which must keep its digits: log1p(exp(-x)) for y = 1 at
// x = 20, 36, 40 and for y = 0 at x = -30, to 1e-12 of itself; the gradient is sigmoid(x) - y = -sigmoid(-x) for y = 1.
// (PyTorch's own form loses them: it gives 2.22e-16 at x = 36, where the loss is 2.3195e-16.)
TEST(Losses, BceWithLogitsKeepsTheDigitsOfConfidentRightLogits) {
  fg::Tensor x = fg::Tensor::from({20.0, 36.0, 40.0, -30.0}).requires_grad_();
  const fg::Tensor y = fg::Tensor::from({1.0, 1.0, 1.0, 0.0});
  const fg::Tensor loss = nn::bce_with_logits_loss(x, y, nn::reduction::none);
  const std::array<double, 4> margin{20.0, 36.0, 40.0, 30.0};
  for (std::int64_t i = 0; i < 4; ++i) {
    const double m = margin[std::size_t(i)];
    EXPECT_NEAR(loss.at({i}), std::log1p(std::exp(-m)), 1e-12 * std::log1p(std::exp(-m))) << "logit " << i;
  }
  const fg::Tensor total = fg::sum(loss);
  total.backward();
  for (std::int64_t i = 0; i < 3; ++i) {
    const double m = margin[std::size_t(i)], slope = -std::exp(-m) / (1.0 + std::exp(-m));
    EXPECT_NEAR(x.grad().at({i}), slope, 1e-12 * std::abs(slope)) << "logit " << i;
  }
  const double slope = std::exp(-30.0) / (1.0 + std::exp(-30.0));
  EXPECT_NEAR(x.grad().at({3}), slope, 1e-12 * slope);
  // The target's gradient is -x exactly, small logits too (PyTorch's is -x times the upstream gradient).
  const fg::FloatTensor logits = fg::FloatTensor::from({1e-7f, 1e-4f, -2.5f, 36.0f});
  fg::FloatTensor targets = fg::FloatTensor::full({4}, 0.5f).requires_grad_();
  const fg::FloatTensor summed = nn::bce_with_logits_loss(logits, targets, nn::reduction::sum);
  summed.backward();
  for (std::int64_t i = 0; i < 4; ++i) EXPECT_EQ(targets.grad().at({i}), -logits.at({i})) << "logit " << i;
}
TEST(Losses, NllMatchesPyTorch) {
  const auto nll = [](const auto& x, auto r) { return nn::nll_loss(x, classes, r); };
  expect_every_reduction(nll, ref::log_probs, {ref::nll_mean_value, ref::nll_mean_upstream, ref::nll_mean_grad},
                         {ref::nll_sum_value, ref::nll_sum_upstream, ref::nll_sum_grad},
                         {ref::nll_none_value, ref::nll_none_upstream, ref::nll_none_grad});
}
TEST(Losses, CrossEntropyMatchesPyTorchAtLogitsOfAThousand) {
  const auto cross_entropy = [](const auto& x, auto r) { return nn::cross_entropy_loss(x, classes, r); };
  expect_every_reduction(
      cross_entropy, ref::logits,
      {ref::cross_entropy_mean_value, ref::cross_entropy_mean_upstream, ref::cross_entropy_mean_grad},
      {ref::cross_entropy_sum_value, ref::cross_entropy_sum_upstream, ref::cross_entropy_sum_grad},
      {ref::cross_entropy_none_value, ref::cross_entropy_none_upstream, ref::cross_entropy_none_grad});
  expect_static_figures([](const auto& x) { return nn::cross_entropy_loss(x, classes); }, ref::logits,
                        ref::cross_entropy_mean_value[0], ref::cross_entropy_mean_grad);
}

// No rows: the summed loss is +0, as PyTorch's (1 / loss is +inf), and the mean NaN.
TEST(Losses, NoRowsSumToPlusZero) {
  const fg::Tensor scores = fg::Tensor::zeros({0, 3}).requires_grad_();
  const fg::Indices none(std::vector<std::int64_t>{}, fg::Extents{0});
  for (const fg::Tensor& loss : {fg::Tensor(nn::cross_entropy_loss(scores, none, nn::reduction::sum)),
                                 fg::Tensor(nn::nll_loss(scores, none, nn::reduction::sum))}) {
    EXPECT_EQ(loss.item(), 0.0);
    EXPECT_FALSE(std::signbit(loss.item()));
  }
  EXPECT_TRUE(std::isnan(fg::Tensor(nn::cross_entropy_loss(scores, none)).item()));
}

TEST(Losses, TargetsAreChecked) {
  const fg::Tensor scores = tensor_of(ref::logits);
  fg::test::expect_error<fg::value_error>(
      [&] {
        (void)nn::cross_entropy_loss(scores, fg::Indices({0, 1, 3, 0}));
      },
      {"cross_entropy_loss", "row 2", "class 3", "[0, 3)"});
  fg::test::expect_error<fg::value_error>(
      [&] {
        (void)nn::nll_loss(scores, fg::Indices({0, -1, 2, 0}));
      },
      {"nll_loss", "row 1", "class -1"});
  fg::test::expect_error<fg::shape_error>(
      [&] {
        (void)nn::nll_loss(scores, fg::Indices({0, 1}));
      },
      {"nll_loss", "one target class per row", "4 rows", "(2)"});
  fg::test::expect_error<fg::shape_error>([&] { (void)nn::cross_entropy_loss(fg::Tensor::zeros({12}), classes); },
                                          {"(N, C)", "(12)"});
  fg::test::expect_error<fg::value_error>([&] { (void)nn::huber_loss(scores, scores, nn::reduction::mean, 0.0); },
                                          {"huber_loss", "delta"});
  fg::test::expect_error<fg::value_error>([&] { (void)nn::huber_loss(scores, scores, nn::reduction::mean, -1e-9); },
                                          {"huber_loss", "delta must be > 0, not -1e-09"});
  // (4, 1) against (4) would make a (4, 4) loss.
  fg::test::expect_error<fg::shape_error>(
      [] {
        (void)nn::mse_loss(fg::Tensor::zeros({4, 1}), fg::Tensor::zeros({4}));
      },
      {"mse_loss", "target's shape (4)", "input's (4, 1)", "(4, 4)"});
  // Shapes that do not broadcast at all: the loss that refuses them is named too, for each loss that broadcasts.
  fg::test::expect_error<fg::shape_error>([] { (void)nn::mse_loss(fg::Tensor::zeros({3}), fg::Tensor::zeros({4})); },
                                          {"fusegrad::nn::mse_loss", "target's shape (4)", "input's (3)"});
  fg::test::expect_error<fg::shape_error>([] { (void)nn::l1_loss(fg::Tensor::zeros({3}), fg::Tensor::zeros({4})); },
                                          {"fusegrad::nn::l1_loss", "target's shape (4)", "input's (3)"});
  fg::test::expect_error<fg::shape_error>(
      [] {
        (void)nn::huber_loss(fg::Tensor::zeros({2, 3}), fg::Tensor::zeros({2}));
      },
      {"fusegrad::nn::huber_loss", "target's shape (2)", "input's (2, 3)"});
  fg::test::expect_error<fg::shape_error>(
      [] {
        (void)nn::bce_with_logits_loss(fg::Tensor::zeros({3}), fg::Tensor::zeros({2, 3}));
      },
      {"bce_with_logits_loss", "(2, 3)"});
  // PyTorch: "Target size (torch.Size([1])) must be the same as input size (torch.Size([2, 2]))".
  fg::test::expect_error<fg::shape_error>(
      [] {
        (void)nn::bce_with_logits_loss(fg::Tensor::zeros({2, 2}), fg::Tensor::zeros({1}));
      },
      {"bce_with_logits_loss", "target's shape (1)", "input's (2, 2)", "one target per logit"});
}

}  // namespace
