// ops/reductions_test.cpp -- sum, mean, max: by hand on a 2x3 example, and against central differences.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include <fusegrad/fusegrad.hpp>

#include "support/expect_array.hpp"
#include "support/expect_error.hpp"
#include "support/finite_difference.hpp"
#include "support/gradcheck_layers.hpp"
#include "support/typed_cases.hpp"

namespace {

namespace fg = fusegrad;
using fg::Extents;
using fg::test::as_array;
using fg::test::expect_array_near;

template <class C>
class Reductions : public ::testing::Test {
 protected:
  using T = typename C::value_type;
  std::mt19937 rng{fg::test::typed_seed};

  // x = [[1, 2, 3], [4, 5, 6]]: every sum below is a small integer, exact in float.
  typename C::template var<2, 3> x = C::template var_of<2, 3>({1, 2, 3, 4, 5, 6});
};
TYPED_TEST_SUITE(Reductions, fg::test::OpCases, fg::test::CaseNames);

// --- by hand, on x = [[1, 2, 3], [4, 5, 6]] ------------------------------------------------------

TYPED_TEST(Reductions, SumOverAllAxesByHand) {
  const auto [value, dx] = fg::value_and_grad(fg::sum(this->x), this->x);
  EXPECT_EQ(value, 21);
  expect_array_near(dx, {1, 1, 1, 1, 1, 1});
}

TYPED_TEST(Reductions, MeanOverAllAxesByHand) {
  const auto [value, dx] = fg::value_and_grad(fg::mean(this->x), this->x);
  EXPECT_EQ(value, 3.5);
  expect_array_near(dx, {1 / 6.0, 1 / 6.0, 1 / 6.0, 1 / 6.0, 1 / 6.0, 1 / 6.0}, 1e-7);
}

// sum over axis 0: column sums [5, 7, 9]; the upstream u = [1, 2, 3] flows back down each column.
TYPED_TEST(Reductions, SumOverAxis0ByHand) {
  const auto y = fg::sum(this->x, fg::axes<0>);
  EXPECT_EQ(y.extents(), (Extents{3}));
  using T = typename TestFixture::T;
  const auto [value, dx] = fg::vjp(y, fg::test::Array<T>(fg::test::Array<double>{{1, 2, 3}}.cast<T>()), this->x);
  expect_array_near(value, {5, 7, 9});
  expect_array_near(dx, {1, 2, 3, 1, 2, 3});
}

// sum over axis 1 with keepdims: row sums [[6], [15]], shape (2,1); u = [1, 2] flows along each row.
TYPED_TEST(Reductions, SumOverAxis1KeepDimsByHand) {
  const auto y = fg::sum(this->x, fg::axes<1>, fg::keepdims);
  EXPECT_EQ(y.extents(), (Extents{2, 1}));
  using T = typename TestFixture::T;
  const auto [value, dx] = fg::vjp(y, fg::test::Array<T>(fg::test::Array<double>{{1, 2}}.cast<T>()), this->x);
  expect_array_near(value, {6, 15});
  expect_array_near(dx, {1, 1, 1, 2, 2, 2});
}

// sum over both axes: 21, shape (); with keepdims shape (1,1).
TYPED_TEST(Reductions, SumOverBothAxesByHand) {
  const auto dropped = fg::sum(this->x, fg::axes<0, 1>);
  const auto kept = fg::sum(this->x, fg::axes<0, 1>, fg::keepdims);
  EXPECT_EQ(dropped.extents(), Extents{});
  EXPECT_EQ(kept.extents(), (Extents{1, 1}));
  EXPECT_EQ(fg::eval(dropped), 21);
  expect_array_near(fg::eval(kept), {21});
  const auto [value, dx] = fg::vjp(kept, 2.0, this->x);
  expect_array_near(value, {21});
  expect_array_near(dx, {2, 2, 2, 2, 2, 2});
}

// mean over axis 0: [2.5, 3.5, 4.5], shape (3); keepdims (1,3). u = [2, 4, 6] is halved on the way back.
TYPED_TEST(Reductions, MeanOverAxis0ByHand) {
  const auto dropped = fg::mean(this->x, fg::axes<0>);
  const auto kept = fg::mean(this->x, fg::axes<0>, fg::keepdims);
  EXPECT_EQ(dropped.extents(), (Extents{3}));
  EXPECT_EQ(kept.extents(), (Extents{1, 3}));
  expect_array_near(fg::eval(kept), {2.5, 3.5, 4.5});
  using T = typename TestFixture::T;
  const auto [value, dx] = fg::vjp(dropped, fg::test::Array<T>(fg::test::Array<double>{{2, 4, 6}}.cast<T>()), this->x);
  expect_array_near(value, {2.5, 3.5, 4.5});
  expect_array_near(dx, {1, 2, 3, 1, 2, 3});
}

// mean over axis 1: [2, 5]; u = [3, 6] is divided by 3 on the way back.
TYPED_TEST(Reductions, MeanOverAxis1ByHand) {
  const auto y = fg::mean(this->x, fg::axes<1>);
  using T = typename TestFixture::T;
  const auto [value, dx] = fg::vjp(y, fg::test::Array<T>(fg::test::Array<double>{{3, 6}}.cast<T>()), this->x);
  expect_array_near(value, {2, 5});
  expect_array_near(dx, {1, 1, 1, 2, 2, 2});
}

// max with a tie: x = [[1, 3, 2], [3, 0, -1]]: the maximum 3 appears twice, each gets dy/2.
TYPED_TEST(Reductions, MaxWithATieSharesTheGradientEvenly) {
  auto x = TypeParam::template var_of<2, 3>({1, 3, 2, 3, 0, -1});
  const auto [value, dx] = fg::value_and_grad(fg::max(x), x);
  EXPECT_EQ(value, 3);
  expect_array_near(dx, {0, 0.5, 0, 0.5, 0, 0});
  const auto [value4, dx4] = fg::vjp(fg::max(x), 4.0, x);
  expect_array_near(value4, {3});
  expect_array_near(dx4, {0, 2, 0, 2, 0, 0});
}

// Three ties: dy/3 each.
TYPED_TEST(Reductions, MaxWithThreeTies) {
  auto x = TypeParam::template var_of<2, 3>({5, 1, 5, 5, 2, 4});
  const auto dx = fg::grad(fg::max(x), x);
  expect_array_near(dx, {1 / 3.0, 0, 1 / 3.0, 1 / 3.0, 0, 0}, 1e-7);
}

// --- against central differences (the vjp path too) on (5, 30) and (2, 3, 4); gradcheck in every layer ---

TYPED_TEST(Reductions, Sum) {
  auto x = TypeParam::template make_var<5, 30>(this->rng, -2, 2);
  fg::test::expect_gradients_match_fd([](auto& v) { return fg::sum(v); }, x);
  fg::test::expect_gradients_match_fd([](auto& v) { return fg::sum(v, fg::axes<1>); }, x);
  fg::test::expect_gradients_match_fd([](auto& v) { return fg::sum(fg::sin(v), fg::axes<0>, fg::keepdims); }, x);
  TypeParam::expect_gradcheck([](const auto& v) { return fg::sum(fg::sin(v), fg::axes<0>, fg::keepdims); }, x);
  auto y = TypeParam::template make_var<2, 3, 4>(this->rng, -2, 2);
  fg::test::expect_gradients_match_fd([](auto& v) { return fg::sum(v * v, fg::axes<0, 2>, fg::keepdims); }, y);
  fg::test::expect_gradients_match_fd([](auto& v) { return fg::sum(v * v, fg::axes<1>); }, y);
  expect_array_near(fg::eval(fg::sum(y)), {double(y.value().sum())}, 1e-6);
}

TYPED_TEST(Reductions, Mean) {
  auto x = TypeParam::template make_var<5, 30>(this->rng, -2, 2);
  fg::test::expect_gradients_match_fd([](auto& v) { return fg::mean(v); }, x);
  fg::test::expect_gradients_match_fd([](auto& v) { return fg::mean(fg::exp(v), fg::axes<1>); }, x);
  TypeParam::expect_gradcheck([](const auto& v) { return fg::mean(fg::exp(v), fg::axes<1>); }, x);
  auto y = TypeParam::template make_var<2, 3, 4>(this->rng, -2, 2);
  fg::test::expect_gradients_match_fd([](auto& v) { return fg::mean(v * v, fg::axes<0, 2>, fg::keepdims); }, y);
  expect_array_near(fg::eval(fg::mean(y)), {double(y.value().mean())}, 1e-6);
}

// A reduction inside an element-wise expression: the sum of squared deviations from row means.
TYPED_TEST(Reductions, DeviationsFromARowMean) {
  auto x = TypeParam::template make_var<5, 30>(this->rng, -2, 2);
  fg::test::expect_gradients_match_fd([](auto& v) { return fg::square(v - fg::mean(v, fg::axes<1>, fg::keepdims)); },
                                      x);
}

// max on distinct values 0.1 apart (FD cannot judge a tie), shuffled so the maximum sits anywhere.
TYPED_TEST(Reductions, Max) {
  using T = typename TestFixture::T;
  auto x = TypeParam::template make_var<5, 30>(this->rng, 0, 1);
  std::vector<double> values(150);
  std::iota(values.begin(), values.end(), -75.0);
  std::shuffle(values.begin(), values.end(), this->rng);
  for (Eigen::Index i = 0; i < 150; ++i) x.value()[i] = static_cast<T>(values[std::size_t(i)] / 10);
  EXPECT_EQ(double(fg::eval(fg::max(x))), double(T(7.4)));
  fg::test::expect_gradients_match_fd([](auto& v) { return fg::max(v); }, x);
  // sin peaks at -4.7 (0.99992) and at 1.6 (0.99957): float's step, 4e-3 * 4.7, would move the maximum from the one
  // to the other; a quarter of it does not.
  auto near_the_peak = fg::test::default_fd_options<T>();
  near_the_peak.step /= 4;
  fg::test::expect_gradients_match_fd(
      near_the_peak, [](auto& v) { return fg::max(fg::sin(v)); }, x);
  TypeParam::expect_gradcheck([](const auto& v) { return fg::max(fg::sin(v)); }, x);
}

// A sum over a chain that ends by adding or subtracting one value for every element (`- log(sigma) - c` ending a
// log-density), at lengths below one block, of whole blocks and with a partial block, on integers, where every sum is
// exact. The term is subtracted from each element, as written, before the sum: values close to it keep their
// precision (1e15 + k minus 1e15 is k exactly; 100e15 + 4950 - 100 * 1e15 is not).
TEST(SumOfAChain, TermsRepeatedOverTheSegment) {
  for (const Eigen::Index n : {1, 3, 4, 8, 13, 100}) {
    SCOPED_TRACE(n);
    const Eigen::ArrayXd values = Eigen::ArrayXd::LinSpaced(n, 0.0, double(n - 1));
    const double s = values.sum(), ss = values.square().sum(), count = double(n);
    fg::Var<double, fg::Shape<fg::dyn>> x(values.matrix());
    fg::Var<double, fg::Shape<>> c(3.0);
    const fg::Const<double, fg::Shape<>> d(0.5);
    {
      const auto [value, dx, dc] = fg::value_and_grad(fg::sum(fg::square(x) - c - 2.0 + d), x, c);
      EXPECT_EQ(value, ss - count * (3.0 + 2.0 - 0.5));
      expect_array_near(dx, 2.0 * values, 0.0);
      EXPECT_EQ(dc, -count);
    }
    {
      const auto [value, dx, dc] = fg::value_and_grad(fg::sum(c + (2.0 + x * c)), x, c);
      EXPECT_EQ(value, count * 5.0 + 3.0 * s);
      expect_array_near(dx, Eigen::ArrayXd::Constant(n, 3.0), 0.0);
      EXPECT_EQ(dc, count + s);
    }
    {
      const auto [value, dx] = fg::value_and_grad(fg::sum(2.0 - x), x);  // a uniform left operand stays per element
      EXPECT_EQ(value, 2.0 * count - s);
      expect_array_near(dx, Eigen::ArrayXd::Constant(n, -1.0), 0.0);
    }
    {
      const fg::Const<double, fg::Shape<>> large(1e15);
      fg::Var<double, fg::Shape<fg::dyn>> near_large((values + 1e15).matrix());
      EXPECT_EQ(fg::eval(fg::sum(near_large - large)), s);
      EXPECT_EQ(std::get<0>(fg::value_and_grad(fg::sum(near_large - large), near_large)), s);
    }
    fg::Tensor xt = fg::Tensor::from(values).requires_grad_();
    fg::ScalarTensor ct(3.0);
    ct.requires_grad_();
    const fg::Tensor fused = fg::sum(fg::square(xt) - ct - 2.0);
    fused.backward();
    EXPECT_EQ(fused.item(), ss - count * 5.0);
    expect_array_near(xt.grad().eigen(), 2.0 * values, 0.0);
    EXPECT_EQ(ct.grad().item(), -count);
  }
}

// A float sum of 2^20 values of 0.1f: its lanes pass what they hold on to a double every 16 blocks, so it comes out
// within 0.02 of the exact 104857.6015625 (one float lane per position summed 65536 values, 0.3 % off; PyTorch's
// cascade sum is off by 0.03). So does a float scalar's gradient, which sums the same way, and a FloatTensor's sum.
TEST(SumOfAChain, FloatSumsKeepTheirDigits) {
  const Eigen::Index n = Eigen::Index(1) << 20;
  const Eigen::ArrayXf values = Eigen::ArrayXf::Constant(n, 0.1f);
  const double exact = double(n) * double(0.1f);
  fg::Var<float, fg::Shape<fg::dyn>> x(values);
  fg::Var<float, fg::Shape<>> scale(1.0f);
  const auto [value, dx, dscale] = fg::value_and_grad(fg::sum(x * scale), x, scale);
  EXPECT_NEAR(value, exact, 0.02);
  EXPECT_NEAR(dscale, exact, 0.02);
  EXPECT_NEAR(fg::FloatTensor(fg::sum(fg::FloatTensor::from(values))).item(), exact, 0.02);
}

// A one-value operand's gradient below a uniform factor (a number, another one-value operand, a scaled upstream) sums
// the rest of each term and multiplies by the factor once: dw of sum(c * (w * x)) over the integers 1 to n is c times
// their sum, rounded once, in both layers. Summing the products c * x term by term, as PyTorch does, misses it by an
// ulp for some c and n.
TEST(SumOfAChain, AUniformFactorMultipliesTheSumOnce) {
  for (const double c : {0.1, 1.0 / 3, 0.7}) {
    for (const Eigen::Index n : {64, 1000, 4099}) {
      SCOPED_TRACE(testing::Message() << "c = " << c << ", n = " << n);
      const Eigen::ArrayXd values = Eigen::ArrayXd::LinSpaced(n, 1.0, double(n));
      const double want = c * (double(n) * double(n + 1) / 2);  // the sum of 1 to n is exact
      const fg::Const<double, fg::Shape<fg::dyn>> x(values);
      fg::Var<double, fg::Shape<>> w(2.0), var_c(c);
      EXPECT_EQ(std::get<1>(fg::value_and_grad(fg::sum(c * (w * x)), w)), want);
      EXPECT_EQ(std::get<1>(fg::value_and_grad(fg::sum(var_c * (w * x)), w)), want);
      EXPECT_EQ(std::get<1>(fg::value_and_grad(fg::sum(w * x) * c, w)), want);
      const fg::ConstTensor xt(fg::Tensor::from(values));
      fg::ScalarTensor wt(2.0);
      wt.requires_grad_();
      fg::Tensor(fg::sum(c * (wt * xt))).backward();
      EXPECT_EQ(wt.grad().item(), want);
    }
  }
}

// Only one-value operands take the uniform factor out of their sum. A vector operand beside them in the same product
// gets its gradient in the order its VJPs are written: dx of 1e200 * sum(z * ((w * x) * 1e200)) for z = (1, 2, -3)
// 1e-300 is (1, 2, -3) 1e100, each product finite, where multiplying the two factors first overflows.
TEST(SumOfAChain, AVectorOperandKeepsTheOrderOfItsProducts) {
  const Eigen::ArrayXd zs{{1e-300, 2e-300, -3e-300}};
  fg::Var<double, fg::Shape<fg::dyn>> x(Eigen::ArrayXd{{1.0, 2.0, 3.0}});
  const fg::Const<double, fg::Shape<fg::dyn>> z(zs);
  fg::Var<double, fg::Shape<>> w(1.0), c(1e200);
  const auto [value, dx, dw] = fg::value_and_grad(fg::sum(z * ((w * x) * c)) * 1e200, x, w);
  const Eigen::ArrayXd want{{1e100, 2e100, -3e100}};
  for (Eigen::Index i = 0; i < 3; ++i) EXPECT_DOUBLE_EQ(dx[i], want[i]);
  EXPECT_DOUBLE_EQ(dw, -4e100);
  const fg::ConstTensor zt(fg::Tensor::from(zs));
  fg::Tensor xt = fg::Tensor::from(Eigen::ArrayXd{{1.0, 2.0, 3.0}}).requires_grad_();
  fg::ScalarTensor wt(1.0), ct(1e200);
  wt.requires_grad_();
  fg::Tensor(fg::sum(zt * ((wt * xt) * ct)) * 1e200).backward();
  for (Eigen::Index i = 0; i < 3; ++i) EXPECT_DOUBLE_EQ(xt.grad().eigen()[i], want[i]);
  EXPECT_DOUBLE_EQ(wt.grad().item(), -4e100);
}

TEST(ReductionErrors, MaxOfAnEmptyArrayIsAValueError) {
  fg::Var<double, fg::Shape<fg::dyn>> x(Extents{0});
  fg::test::expect_error<fg::value_error>([&] { (void)fg::eval(fg::max(x)); }, {"fusegrad::max", "empty"});
}

}  // namespace
