// ops/axis_reductions_test.cpp -- max, min, argmax and argmin over chosen axes, prod, logsumexp, variance, cumsum,
// softmax and log_softmax: against PyTorch's figures (ties, zeros, inputs of +-1000) in every layer, and gradcheck.
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include <fusegrad/fusegrad.hpp>

#include "data/reductions/torch_reference.hpp"
#include "support/expect_array.hpp"
#include "support/expect_error.hpp"
#include "support/gradcheck_layers.hpp"
#include "support/torch_figures.hpp"
#include "support/typed_cases.hpp"

namespace {

namespace fg = fusegrad;
namespace axis_reference = fg::test::torch_reference;
using fg::Extents;
using fg::test::expect_array_near;

// --- PyTorch's figures (tests/data/reductions/make_reference.py), float64, on a 2x3 input ------------------------

using fg::test::expect_torch_figures;
#define EXPECT_TORCH_FIGURES(f, name)                                                                              \
  expect_torch_figures(f, axis_reference::name##_x, axis_reference::name##_upstream, axis_reference::name##_value, \
                       axis_reference::name##_grad)

TEST(AxisReductionsAgainstPyTorch, MaxOverAnAxisSendsTheGradientToTheFirstOfTiedMaxima) {
  EXPECT_TORCH_FIGURES([](const auto& x) { return fg::max(x, fg::axes<1>); }, max_dim1_ties);
}
TEST(AxisReductionsAgainstPyTorch, MinOverAnAxisSendsTheGradientToTheFirstOfTiedMinima) {
  EXPECT_TORCH_FIGURES([](const auto& x) { return fg::min(x, fg::axes<0>); }, min_dim0_ties);
}
TEST(AxisReductionsAgainstPyTorch, MaxOverEveryAxisSharesTheGradientAmongTies) {
  EXPECT_TORCH_FIGURES([](const auto& x) { return fg::max(x); }, max_all_ties);
  EXPECT_TORCH_FIGURES([](const auto& x) { return fg::max(x, fg::axes<0, 1>); }, max_all_ties);
}
TEST(AxisReductionsAgainstPyTorch, AmaxOverSeveralAxesSharesTheGradientAmongTies) {
  EXPECT_TORCH_FIGURES([](const auto& x) { return fg::max(x, fg::axes<0, 1>, fg::keepdims); }, amax_keepdim_ties);
}
TEST(AxisReductionsAgainstPyTorch, ProdWithOneZeroInAGroup) {
  EXPECT_TORCH_FIGURES([](const auto& x) { return fg::prod(x, fg::axes<1>); }, prod_dim1_zeros);
}
TEST(AxisReductionsAgainstPyTorch, ProdWithTwoZerosInAGroup) {
  EXPECT_TORCH_FIGURES([](const auto& x) { return fg::prod(x, fg::axes<0>); }, prod_dim0_two_zeros);
}
TEST(AxisReductionsAgainstPyTorch, ProdOfEverythingWithOneZero) {
  EXPECT_TORCH_FIGURES([](const auto& x) { return fg::prod(x); }, prod_all_one_zero);
}
TEST(AxisReductionsAgainstPyTorch, LogsumexpOfInputsNearPlusAndMinus1000) {
  EXPECT_TORCH_FIGURES([](const auto& x) { return fg::logsumexp(x, fg::axes<1>); }, logsumexp_dim1_large);
  EXPECT_TORCH_FIGURES([](const auto& x) { return fg::logsumexp(x, fg::axes<0, 1>); }, logsumexp_all_large);
}
TEST(AxisReductionsAgainstPyTorch, LogSoftmaxOfInputsNearPlusAndMinus1000) {
  EXPECT_TORCH_FIGURES([](const auto& x) { return fg::log_softmax(x, fg::axes<1>); }, log_softmax_dim1_large);
}
TEST(AxisReductionsAgainstPyTorch, SoftmaxOfInputsNearPlusAndMinus1000) {
  EXPECT_TORCH_FIGURES([](const auto& x) { return fg::softmax(x, fg::axes<0>); }, softmax_dim0_large);
}
TEST(AxisReductionsAgainstPyTorch, VarianceWithEitherCorrection) {
  EXPECT_TORCH_FIGURES([](const auto& x) { return fg::variance(x, fg::axes<1>); }, var_dim1_unbiased);
  EXPECT_TORCH_FIGURES([](const auto& x) { return fg::variance<0>(x, fg::axes<0>); }, var_dim0_population);
  EXPECT_TORCH_FIGURES([](const auto& x) { return fg::stddev(x); }, std_all_unbiased);
}
TEST(AxisReductionsAgainstPyTorch, CumsumAlongAnAxis) {
  EXPECT_TORCH_FIGURES([](const auto& x) { return fg::cumsum(x, fg::axes<1>); }, cumsum_dim1);
}

// --- closed forms ------------------------------------------------------------------------------------------------

// Softmax sums to 1 over its axes, and log_softmax is its log; the gradient of sum(softmax) is 0.
TEST(AxisReductionsByHand, SoftmaxSumsToOneAndLogSoftmaxIsItsLog) {
  fg::Var<double, fg::Shape<3, 4>> x;
  x.value() << 1, 2, 3, 4, -1, 0, 1000, 2, 5, 5, 5, 5;
  const auto p = fg::eval(fg::softmax(x, fg::axes<1>));
  const auto log_p = fg::eval(fg::log_softmax(x, fg::axes<1>));
  for (int row = 0; row < 3; ++row) EXPECT_NEAR(p.segment(4 * row, 4).sum(), 1.0, 1e-15);
  for (int i = 0; i < 12; ++i) {
    if (p[i] > 1e-300) {
      EXPECT_NEAR(std::log(p[i]), log_p[i], 1e-12) << i;
    }
  }
  EXPECT_EQ(log_p[4], -1001.0);  // exact where softmax itself underflows to 0
  EXPECT_LT(fg::grad(fg::sum(fg::softmax(x, fg::axes<1>)), x).abs().maxCoeff(), 1e-15);
  EXPECT_EQ(p[6], 1.0);  // exp(1000 - 1000): no overflow
}

// log_softmax subtracts each group's maximum first, as PyTorch does: x - max is exact for inputs close together,
// however large, so (1e10, 1e10 + 1) gives (-1, 0) - log(1 + 1/e) to the last bit, and its gradient is as exact.
TEST(AxisReductionsByHand, LogSoftmaxKeepsItsPrecisionAtLargeInputs) {
  const double shift = std::log1p(std::exp(-1.0)), p0 = 1 / (1 + std::exp(1.0));  // softmax = (p0, 1 - p0)
  fg::Var<double, fg::Shape<2>> x{1e10, 1e10 + 1};
  const fg::Const<double, fg::Shape<2>> pick_first{1.0, 0.0};
  // d/dx log_softmax(x)[0] = (1, 0) - softmax(x)
  const auto [value, dx] = fg::value_and_grad(fg::sum(fg::log_softmax(x, fg::axes<0>) * pick_first), x);
  EXPECT_NEAR(value, -1 - shift, 1e-15);
  EXPECT_NEAR(dx[0], 1 - p0, 1e-15);
  EXPECT_NEAR(dx[1], -(1 - p0), 1e-15);
  const auto y = fg::eval(fg::log_softmax(x, fg::axes<0>));
  EXPECT_NEAR(y[1], -shift, 1e-15);
  const fg::Tensor t = fg::Tensor::from({1e10, 1e10 + 1}, {2});
  expect_array_near(fg::Tensor(fg::log_softmax(t, fg::axes<0>)).eigen(), {-1 - shift, -shift}, 1e-15);
  expect_array_near(fg::taped(fg::softmax(t, fg::axes<0>)).eigen(), {p0, 1 - p0}, 1e-15);
  // In float, 1e4 is already large: x - logsumexp(x) would be off by about 1e4 * 6e-8.
  fg::Var<float, fg::Shape<2>> f{1e4f, 1e4f + 1};
  EXPECT_NEAR(fg::eval(fg::softmax(f, fg::axes<0>))[0], float(p0), 1e-7f);
}

// A group holding +inf, or only -inf, has no softmax: NaN throughout, as in PyTorch.
TEST(AxisReductionsByHand, LogSoftmaxOfAGroupWithInfinitiesIsNaN) {
  const double inf = std::numeric_limits<double>::infinity();
  const fg::Tensor x = fg::Tensor::from({inf, 1.0, -inf, -inf, -inf, 0.0}, {3, 2});
  const fg::Tensor y = fg::log_softmax(x, fg::axes<1>);
  for (int i = 0; i < 4; ++i) EXPECT_TRUE(std::isnan(y.data()[i])) << i;
  EXPECT_EQ(y.data()[4], -inf);
  EXPECT_EQ(y.data()[5], 0.0);
}

// The standard deviation of equal values is 0, and its gradient there 0, as PyTorch takes it (sqrt's slope is infinite,
// the variance's 0).
TEST(AxisReductionsByHand, StddevOfEqualValuesHasAZeroGradient) {
  fg::Var<double, fg::Shape<3>> x{2.0, 2.0, 2.0};
  const auto [value, dx] = fg::value_and_grad(fg::stddev(x), x);
  EXPECT_EQ(value, 0.0);
  expect_array_near(dx, {0.0, 0.0, 0.0}, 0.0);
  // Per row, one row constant: (1, 2, 3) has std 1 and gradient (x - 2) / (2 std) * 2 / 2 = (-0.5, 0, 0.5).
  fg::Tensor t = fg::Tensor::from({1.0, 2.0, 3.0, 5.0, 5.0, 5.0}, {2, 3}).requires_grad_();
  const fg::Tensor s = fg::stddev(t, fg::axes<1>);
  expect_array_near(s.eigen(), {1.0, 0.0}, 1e-15);
  fg::Tensor(fg::sum(s)).backward();
  expect_array_near(t.grad().eigen(), {-0.5, 0.0, 0.5, 0.0, 0.0, 0.0}, 1e-15);
  t.zero_grad();
  fg::taped(fg::sum(fg::stddev<0>(t, fg::axes<1>, fg::keepdims))).backward();  // population: std sqrt(2/3)
  const double sd = std::sqrt(2.0 / 3.0);
  expect_array_near(t.grad().eigen(), {-1 / (3 * sd), 0.0, 1 / (3 * sd), 0.0, 0.0, 0.0}, 1e-15);
  EXPECT_EQ(t.grad().data()[3], 0.0);
}

// float's means and sums of squares are taken in double, as PyTorch's are: torch.std of float32 (0, 1e20, 2e20) is
// float(1e20) with gradient (-0.5, 0, 0.5), where a sum of squares in float (2e40) would overflow; over axis 1 of
// ((0, 1e20, 2e20), (1, 2, 3)) the second row's is 1 with the same gradient. The variance, 1e40, is inf in float, as
// torch.var's.
TEST(AxisReductionsByHand, FloatStddevOfALargeSpreadIsFinite) {
  fg::Var<float, fg::Shape<3>> x{0.0f, 1e20f, 2e20f};
  const auto [value, dx] = fg::value_and_grad(fg::stddev(x), x);
  EXPECT_EQ(value, 1e20f);
  expect_array_near(dx, {-0.5, 0.0, 0.5}, 1e-7);
  EXPECT_EQ(fg::eval(fg::variance(x)), std::numeric_limits<float>::infinity());
  fg::FloatTensor t = fg::FloatTensor::from(std::vector<float>{0.0f, 1e20f, 2e20f, 1.0f, 2.0f, 3.0f}, {2, 3});
  t.requires_grad_();
  for (const bool taped : {false, true}) {
    t.zero_grad();
    const fg::FloatTensor s =
        taped ? fg::taped(fg::stddev(t, fg::axes<1>)) : fg::FloatTensor(fg::stddev(t, fg::axes<1>));
    EXPECT_EQ(s.data()[0], 1e20f);
    EXPECT_EQ(s.data()[1], 1.0f);
    fg::FloatTensor(fg::sum(s)).backward();
    expect_array_near(t.grad().eigen(), {-0.5, 0.0, 0.5, -0.5, 0.0, 0.5}, 1e-7);
  }
}

// Equal values whose sum divided by n is not exactly one of them (three 0.1s sum to 0.30000000000000004, a third of
// which is 0.10000000000000002): the variance and standard deviation are still exactly 0, and the gradient 0, as
// PyTorch gives them (torch.std(x, dim=1) of [[0.1, 0.1, 0.1]], torch.std of ten 0.1s), in both layers.
TEST(AxisReductionsByHand, EqualValuesWithAnInexactMeanHaveNoSpread) {
  fg::Var<double, fg::Shape<10>> ten;
  ten.value().setConstant(0.1);
  const auto [value, dx] = fg::value_and_grad(fg::stddev(ten), ten);
  EXPECT_EQ(value, 0.0);
  for (Eigen::Index i = 0; i < 10; ++i) EXPECT_EQ(dx[i], 0.0) << i;
  EXPECT_EQ(fg::eval(fg::variance(ten)), 0.0);
  fg::Tensor t = fg::Tensor::from({0.1, 0.1, 0.1, 1.0, 2.0, 3.0}, {2, 3}).requires_grad_();
  for (const bool taped : {false, true}) {
    t.zero_grad();
    const fg::Tensor s = taped ? fg::taped(fg::stddev(t, fg::axes<1>)) : fg::Tensor(fg::stddev(t, fg::axes<1>));
    EXPECT_EQ(s.data()[0], 0.0);
    EXPECT_EQ(s.data()[1], 1.0);
    fg::Tensor(fg::sum(s)).backward();
    expect_array_near(t.grad().eigen(), {0.0, 0.0, 0.0, -0.5, 0.0, 0.5}, 1e-15);
    EXPECT_EQ(t.grad().data()[0], 0.0);
  }
}

// An infinite mean keeps the variance's infinities and NaNs as PyTorch 1.13 gives them: torch.var of [1e308, 1e308]
// (whose sum overflows) is inf with gradient (-inf, -inf); of [inf, 1] NaN with gradient (NaN, -inf).
TEST(AxisReductionsByHand, VarianceOfAnInfiniteMean) {
  const double inf = std::numeric_limits<double>::infinity();
  fg::Var<double, fg::Shape<2>> huge{1e308, 1e308}, with_inf{inf, 1.0};
  const auto [huge_value, dhuge] = fg::value_and_grad(fg::variance(huge), huge);
  EXPECT_EQ(huge_value, inf);
  EXPECT_EQ(dhuge[0], -inf);
  EXPECT_EQ(dhuge[1], -inf);
  const auto [inf_value, dinf] = fg::value_and_grad(fg::variance(with_inf), with_inf);
  EXPECT_TRUE(std::isnan(inf_value));
  EXPECT_TRUE(std::isnan(dinf[0]));
  EXPECT_EQ(dinf[1], -inf);
}

// The exact limits at +-inf: logsumexp of all -inf is -inf, with any +inf it is +inf.
TEST(AxisReductionsByHand, LogsumexpAtInfinities) {
  const double inf = std::numeric_limits<double>::infinity();
  const fg::Tensor x = fg::Tensor::from({-inf, -inf, 1.0, inf}, {2, 2});
  const fg::Tensor y = fg::logsumexp(x, fg::axes<1>);
  EXPECT_EQ(y.data()[0], -inf);
  EXPECT_EQ(y.data()[1], inf);
}

// A NaN in a group is its max and its min, as in PyTorch.
TEST(AxisReductionsByHand, MaxAndMinPropagateNaN) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const fg::Tensor x = fg::Tensor::from({1.0, nan, 3.0, 4.0}, {2, 2});
  const fg::Tensor largest = fg::max(x, fg::axes<1>), smallest = fg::min(x, fg::axes<1>);
  EXPECT_TRUE(std::isnan(largest.data()[0]));
  EXPECT_EQ(largest.data()[1], 4.0);
  EXPECT_TRUE(std::isnan(smallest.data()[0]));
  EXPECT_EQ(smallest.data()[1], 3.0);
}

// argmax and argmin: the first extremum wins a tie (as in PyTorch), a NaN wins over numbers, the flat index over
// all axes; in every layer, with no gradient through the indices.
TEST(AxisReductionsByHand, ArgmaxAndArgminFindTheFirstExtremum) {
  const fg::Tensor ties = fg::Tensor::from({1.0, 3, 3, 2, 2, -1}, {2, 3});
  expect_array_near(fg::Tensor(fg::argmax(ties, fg::axes<1>)).eigen(), {1, 0});
  expect_array_near(fg::Tensor(fg::argmin(ties, fg::axes<0>, fg::keepdims)).eigen(), {0, 1, 1});
  EXPECT_EQ(fg::Tensor(fg::argmin(ties, fg::axes<0>, fg::keepdims)).shape(), (Extents{1, 3}));
  EXPECT_EQ(fg::Tensor(fg::argmax(ties)).item(), 1.0);  // flat: the first 3
  EXPECT_EQ(fg::Tensor(fg::argmin(ties)).item(), 5.0);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(fg::Tensor(fg::argmax(fg::Tensor::from({1.0, nan, 3.0}, {3}))).item(), 1.0);
  fg::Var<double, fg::Shape<2, 3>> x;
  x.value() << 1, 3, 3, 2, 2, -1;
  const auto [indices, dx] = fg::vjp(fg::argmax(x, fg::axes<1>), 1.0, x);
  expect_array_near(indices, {1, 0});
  expect_array_near(dx, {0, 0, 0, 0, 0, 0});
  static_assert(std::is_same_v<decltype(fg::argmax(x, fg::axes<0>))::static_shape, fg::Shape<3>>);
  // Indices of a tensor that requires grad do not (PyTorch's are integers): no node, nothing to call backward on.
  fg::Tensor p = fg::Tensor::from({1.0, 5.0, 3.0}, {3}).requires_grad_();
  EXPECT_FALSE(fg::Tensor(fg::argmax(p)).requires_grad());
  EXPECT_FALSE(fg::Tensor(fg::taped(fg::argmin(p, fg::axes<0>))).requires_grad());
  EXPECT_TRUE(fg::Tensor(fg::taped(fg::argmax(p, fg::axes<0>) * p)).requires_grad());
  EXPECT_THROW(fg::Tensor(fg::argmax(p)).backward(), fg::graph_error);
  EXPECT_FALSE(p.grad().defined());
}

// An index is a value of the tensor's scalar type. float holds every integer up to 2^24: argmax over 2^24 + 1
// elements finds the last one exactly, and over 2^24 + 2 positions (where 2^24 + 1 would round to 2^24) argmin
// throws, in both layers, rather than give a neighbour's index. (PyTorch's indices are 64-bit integers.)
TEST(AxisReductionsByHand, FloatIndicesThrowPastTheIntegersFloatHolds) {
  constexpr std::size_t exact = std::size_t(1) << 24;
  fg::FloatTensor x = fg::FloatTensor::zeros({exact + 1});
  x.mutable_eigen()[Eigen::Index(exact)] = 1.0f;
  EXPECT_EQ(fg::FloatTensor(fg::argmax(x)).item(), 16777216.0f);
  const fg::FloatTensor longer = fg::FloatTensor::zeros({1, exact + 2});
  fg::test::expect_error<fg::value_error>(
      [&] { (void)fg::FloatTensor(fg::argmin(longer, fg::axes<1>)); },
      {"fusegrad::argmin", "16777218 positions along the axis", "float", "to<double>()"});
  const fg::Var<float, fg::Shape<fg::dyn>> v(fg::Extents{exact + 2});
  fg::test::expect_error<fg::value_error>([&] { (void)fg::eval(fg::argmax(v)); },
                                          {"fusegrad::argmax", "16777218 elements"});
  // long double holds every integer a std::size_t does: nothing to check.
  const fg::Var<long double, fg::Shape<3>> wide{1.0L, 3.0L, 2.0L};
  EXPECT_EQ(fg::eval(fg::argmax(wide)), 1.0L);
}

// Sums of float over chosen axes are taken in double, as PyTorch's cumsum is (its other sums are cascades of float):
// a float total over 2^20 values of 0.1f would be 0.25 % off. Each expected figure is the exact sum of the float
// inputs, computed in double.
TEST(AxisReductionsByHand, FloatSumsOverAxesKeepTheirDigits) {
  constexpr std::size_t n = std::size_t(1) << 20;
  const double exact = double(n) * double(0.1f);  // 104857.6015625
  const Eigen::ArrayXf tenths = Eigen::ArrayXf::Constant(Eigen::Index(n), 0.1f);
  const auto column = fg::FloatTensor::from(tenths, {n, 1});
  EXPECT_NEAR(fg::FloatTensor(fg::sum(column, fg::axes<0>)).item(), exact, 0.01);
  EXPECT_NEAR(fg::FloatTensor(fg::mean(column, fg::axes<0>)).item(), 0.1f, 1e-8);
  // Rows added into the result, one column each: each of the 4 sums adds n / 4 values.
  const fg::FloatTensor rows = fg::sum(fg::FloatTensor::from(tenths, {n / 4, 4}), fg::axes<0>);
  for (std::size_t j = 0; j < 4; ++j) EXPECT_NEAR(rows.at({std::int64_t(j)}), exact / 4, 0.01) << "column " << j;
  // The gradient of a float Var broadcast over the rows sums them back the same way.
  fg::Var<float, fg::Shape<fg::dyn, 4>> data(Eigen::ArrayXXf::Constant(Eigen::Index(n / 4), 4, 0.1f));
  fg::Var<float, fg::Shape<4>> bias{0.0f, 0.0f, 0.0f, 0.0f};
  const auto [value, dbias] = fg::value_and_grad(fg::sum((data + bias) * data), bias);
  for (Eigen::Index j = 0; j < 4; ++j) EXPECT_NEAR(dbias[j], exact / 4, 0.01) << "column " << j;
  // A taped op's one-element operand sums its gradient over the other's elements the same way.
  const fg::FloatTensor y = fg::FloatTensor::from(tenths, {n});
  for (const fg::Extents& scalar_shape : {fg::Extents{}, fg::Extents{1}}) {
    fg::FloatTensor b = fg::FloatTensor::zeros(scalar_shape).requires_grad_();
    const fg::FloatTensor loss = fg::sum(fg::taped(y + b) * y);
    loss.backward();
    EXPECT_NEAR(b.grad().eigen()[0], exact, 0.01) << "shape " << scalar_shape.to_string();
  }
  // Running sums, both ways (the gradient runs from the other end).
  fg::FloatTensor x = fg::FloatTensor::from(tenths, {n}).requires_grad_();
  const fg::FloatTensor running = fg::cumsum(x, fg::axes<0>);
  EXPECT_NEAR(running.at({-1}), exact, 0.01);
  const fg::FloatTensor total = fg::sum(running);
  total.backward();
  EXPECT_NEAR(x.grad().at({0}), double(n), 0.5);
  const fg::FloatTensor cancelling = fg::cumsum(fg::FloatTensor::from({1e8f, 1.0f, -1e8f}), fg::axes<0>);
  expect_array_near(cancelling.eigen(), {1e8f, 1e8f, 1.0f}, 0.0f);
  // logsumexp and log_softmax of log(10) beside n - 1 zeros: their sum of exponentials is a sum of n - 1 tenths.
  Eigen::ArrayXf logits = Eigen::ArrayXf::Zero(Eigen::Index(n));
  logits[0] = std::log(10.0f);
  const double lse = double(logits[0]) + std::log(1.0 + double(n - 1) * double(std::exp(-logits[0])));
  const auto z = fg::FloatTensor::from(logits);
  EXPECT_NEAR(fg::FloatTensor(fg::logsumexp(z)).item(), lse, 1e-5);
  EXPECT_NEAR(fg::FloatTensor(fg::log_softmax(z, fg::axes<0>)).at({0}), double(logits[0]) - lse, 1e-5);
}

// max over several axes shares the gradient among its ties; the ties are counted in integers: 2^24 + 2 of them share
// it in parts of 1 / (2^24 + 2), where a float count stops at 2^24.
TEST(AxisReductionsByHand, FloatTiesPast2To24ShareTheGradientEvenly) {
  constexpr std::size_t n = (std::size_t(1) << 24) + 2;
  fg::FloatTensor t = fg::FloatTensor::zeros({1, n}).requires_grad_();
  const fg::FloatTensor m = fg::max(t);
  m.backward();
  EXPECT_EQ(t.grad().at({0, 0}), float(1.0 / double(n)));
  EXPECT_EQ(t.grad().at({0, -1}), float(1.0 / double(n)));
}

// An element-wise op of a user's that passes no gradient (`differentiable = false`, as argmax's): what lies below it,
// here a mean over an axis, receives none, and is swept back as zeros.
struct frozen_op {
  static constexpr std::string_view name = "frozen";
  static constexpr std::string_view backward_name = "FrozenBackward";
  static constexpr fg::vjp_needs needs = fg::vjp_needs::none;
  static constexpr bool differentiable = false;
  static auto value(const auto& x) { return x; }
  static auto vjp(const auto& dy, const auto& /*x*/, const auto& /*y*/) { return dy; }
};
auto frozen(fg::Differentiable auto&& x) { return fg::detail::make_unary<frozen_op>(std::forward<decltype(x)>(x)); }

TEST(AxisReductionsByHand, BelowAnOpThatPassesNoGradientNothingIsSent) {
  fg::Var<double, fg::Shape<2, 3>> x;
  x.value() << 1, 2, 3, 4, 5, 6;
  // d/dx sum(frozen(mean over rows) * x) = the row means, spread: (2, 2, 2, 5, 5, 5).
  const auto [value, dx] = fg::value_and_grad(fg::sum(frozen(fg::mean(x, fg::axes<1>, fg::keepdims)) * x), x);
  EXPECT_EQ(value, 2.0 * 6 + 5.0 * 15);
  expect_array_near(dx, {2, 2, 2, 5, 5, 5});
}

// keepdims keeps the reduced axis as 1; reducing several axes at once reduces each.
TEST(AxisReductionsByHand, ShapesWithAndWithoutKeepdims) {
  fg::Var<double, fg::Shape<2, 3, 4>> x;
  std::iota(x.value().data(), x.value().data() + 24, 0.0);
  EXPECT_EQ(fg::max(x, fg::axes<1>).extents(), (Extents{2, 4}));
  EXPECT_EQ(fg::min(x, fg::axes<0, 2>, fg::keepdims).extents(), (Extents{1, 3, 1}));
  expect_array_near(fg::eval(fg::max(x, fg::axes<0, 2>)), {15, 19, 23});
  expect_array_near(fg::eval(fg::prod(x, fg::axes<1>)),
                    {0, 1 * 5 * 9, 2 * 6 * 10, 3 * 7 * 11, 12 * 16 * 20, 13 * 17 * 21, 14 * 18 * 22, 15 * 19 * 23});
  static_assert(std::is_same_v<decltype(fg::variance(x, fg::axes<2>, fg::keepdims))::static_shape, fg::Shape<2, 3, 1>>);
  static_assert(std::is_same_v<decltype(fg::cumsum(x, fg::axes<2>))::static_shape, fg::Shape<2, 3, 4>>);
}

// --- errors ------------------------------------------------------------------------------------------------------

TEST(AxisReductionErrors, AnExtremumOverAnEmptyAxisIsAValueError) {
  const fg::Tensor x = fg::Tensor::zeros({2, 0});
  fg::test::expect_error<fg::value_error>([&] { (void)fg::Tensor(fg::min(x, fg::axes<1>)); },
                                          {"fusegrad::min", "empty axis", "(2, 0)"});
  EXPECT_EQ(fg::Tensor(fg::max(x, fg::axes<0>)).shape(), (Extents{0}));  // nothing to reduce: an empty result
  // Over an empty axis it is undefined even where the result is empty too, as in PyTorch (torch.zeros(0, 0).amax(1)).
  const fg::Tensor none = fg::Tensor::zeros({0, 0});
  fg::test::expect_error<fg::value_error>([&] { (void)fg::Tensor(fg::max(none, fg::axes<1>)); },
                                          {"fusegrad::max", "empty axis", "axis 1 of shape (0, 0)"});
  fg::test::expect_error<fg::value_error>([&] { (void)fg::Tensor(fg::argmin(none, fg::axes<0>)); },
                                          {"fusegrad::argmin", "empty axis", "axis 0"});
}

TEST(AxisReductionErrors, AnAxisPastTheRankIsAShapeError) {
  const fg::Tensor x = fg::Tensor::ones({3});
  fg::test::expect_error<fg::shape_error>([&] { (void)fg::Tensor(fg::cumsum(x, fg::axes<1>)); },
                                          {"fusegrad::cumsum", "axis 1", "(3)"});
  fg::test::expect_error<fg::shape_error>([&] { (void)fg::Tensor(fg::logsumexp(x, fg::axes<2>)); },
                                          {"fusegrad::logsumexp", "axis 2"});
}

// softmax is exp of a log_softmax inside, but its errors name softmax, the function called.
TEST(AxisReductionErrors, SoftmaxNamesItselfForAnAxisPastTheRank) {
  const fg::Tensor m = fg::Tensor::ones({2, 3});
  const std::string message = fg::test::expect_error<fg::shape_error>(
      [&] { (void)fg::Tensor(fg::softmax(m, fg::axes<5>)); }, {"fusegrad::softmax", "axis 5", "(2, 3)"});
  EXPECT_EQ(message.find("log_softmax"), std::string::npos) << message;
  fg::test::expect_error<fg::shape_error>([&] { (void)fg::Tensor(fg::log_softmax(m, fg::axes<2>)); },
                                          {"fusegrad::log_softmax", "axis 2"});
}

// --- gradcheck in every layer, float and double, static and dyn shapes -----------------------------------------------

template <class C>
class AxisReductions : public ::testing::Test {
 protected:
  using T = typename C::value_type;
  std::mt19937 rng{fg::test::typed_seed};

  // Distinct values 0.25 apart, shuffled: no ties, so central differences can judge max and min.
  typename C::template var<3, 4> distinct() {
    auto x = C::template make_var<3, 4>(rng, 0, 1);
    std::vector<double> values(12);
    std::iota(values.begin(), values.end(), -6.0);
    std::shuffle(values.begin(), values.end(), rng);
    for (Eigen::Index i = 0; i < 12; ++i) x.value()[i] = static_cast<T>(values[std::size_t(i)] / 4);
    return x;
  }
};
TYPED_TEST_SUITE(AxisReductions, fg::test::OpCases, fg::test::CaseNames);

TYPED_TEST(AxisReductions, MaxOverAxes) {
  const auto x = this->distinct();
  TypeParam::expect_gradcheck([](const auto& v) { return fg::max(fg::sin(v), fg::axes<1>); }, x);
}
TYPED_TEST(AxisReductions, Min) {
  const auto x = this->distinct();
  TypeParam::expect_gradcheck([](const auto& v) { return fg::min(fg::exp(v), fg::axes<0>, fg::keepdims) * fg::exp(v); },
                              x);
}
// d/dx sum(argmax(x) * x) is argmax(x) spread along the axis: the indices are constants to the gradient.
TYPED_TEST(AxisReductions, Argmax) {
  const auto x = this->distinct();
  TypeParam::expect_gradcheck([](const auto& v) { return fg::argmax(v, fg::axes<1>, fg::keepdims) * fg::sin(v); }, x);
}
TYPED_TEST(AxisReductions, Argmin) {
  const auto x = this->distinct();
  TypeParam::expect_gradcheck([](const auto& v) { return fg::argmin(v) * v; }, x);
}
TYPED_TEST(AxisReductions, Prod) {
  auto x = TypeParam::template make_var<3, 4>(this->rng, 0.5, 1.5);
  TypeParam::expect_gradcheck([](const auto& v) { return fg::prod(fg::sin(v), fg::axes<1>); }, x);
}
TYPED_TEST(AxisReductions, Logsumexp) {
  auto x = TypeParam::template make_var<3, 4>(this->rng, -3, 3);
  TypeParam::expect_gradcheck([](const auto& v) { return fg::logsumexp(v * v, fg::axes<0>, fg::keepdims) - v; }, x);
}
TYPED_TEST(AxisReductions, Log_softmax) {
  auto x = TypeParam::template make_var<3, 4>(this->rng, -3, 3);
  TypeParam::expect_gradcheck([](const auto& v) { return fg::log_softmax(v, fg::axes<1>) * v; }, x);
}
TYPED_TEST(AxisReductions, Variance) {
  auto x = TypeParam::template make_var<3, 4>(this->rng, -2, 2);
  TypeParam::expect_gradcheck([](const auto& v) { return fg::variance(fg::exp(v), fg::axes<1>); }, x);
}
TYPED_TEST(AxisReductions, Stddev) {
  auto x = TypeParam::template make_var<3, 4>(this->rng, -2, 2);
  TypeParam::expect_gradcheck([](const auto& v) { return fg::stddev<0>(v, fg::axes<0>); }, x);
  TypeParam::expect_gradcheck([](const auto& v) { return fg::stddev(fg::sin(v), fg::axes<1>, fg::keepdims) * v; }, x);
}
TYPED_TEST(AxisReductions, Cumsum) {
  auto x = TypeParam::template make_var<3, 4>(this->rng, -2, 2);
  TypeParam::expect_gradcheck([](const auto& v) { return fg::square(fg::cumsum(v, fg::axes<1>)); }, x);
}

}  // namespace

#undef EXPECT_TORCH_FIGURES  // a unity build continues with another file
