// ops/pow_min_max_ops_test.cpp -- pow, maximum, minimum: values and gradients in every operand layout.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include <gtest/gtest.h>

#include <fusegrad/fusegrad.hpp>

#include "support/binary_op_check.hpp"

namespace {

namespace fg = fusegrad;
using fg::test::Domain;

template <class C>
using PowMinMaxOps = fg::test::BinaryOpCheck<C>;
TYPED_TEST_SUITE(PowMinMaxOps, fg::test::OpCases, fg::test::CaseNames);

// pow needs a positive base for its exponent's gradient (log a).
TYPED_TEST(PowMinMaxOps, Pow) {
  this->check([](const auto& a, const auto& b) { return fg::pow(a, b); },
              [](double a, double b) { return std::pow(a, b); }, Domain{0.5, 3}, Domain{-2, 2});
}
// maximum and minimum: a on the grid k/2 + 0.375, b on k/2 + 0.125, so a and b (and the
// literal 1.5) are never closer than 0.125: no ties, where FD cannot judge.
TYPED_TEST(PowMinMaxOps, Maximum) {
  this->check([](const auto& a, const auto& b) { return fg::maximum(a, b); },
              [](double a, double b) { return std::max(a, b); }, Domain{-3, 3, true, 0.375},
              Domain{-3, 3, true, 0.125});
}
TYPED_TEST(PowMinMaxOps, Minimum) {
  this->check([](const auto& a, const auto& b) { return fg::minimum(a, b); },
              [](double a, double b) { return std::min(a, b); }, Domain{-3, 3, true, 0.375},
              Domain{-3, 3, true, 0.125});
}

// At a tie, maximum and minimum share the upstream gradient evenly: dy/2 to each side.
TEST(PowMinMaxOpsByHand, TiesShareTheGradientEvenly) {
  fg::Var<double, fg::Shape<3>> a{1.0, 2.0, 3.0};
  fg::Var<double, fg::Shape<3>> b{2.0, 2.0, 2.0};
  const auto [vmax, da_max, db_max] = fg::value_and_grad(fg::sum(fg::maximum(a, b)), a, b);
  EXPECT_EQ(vmax, 2.0 + 2.0 + 3.0);
  EXPECT_EQ(da_max[0], 0.0);
  EXPECT_EQ(da_max[1], 0.5);
  EXPECT_EQ(da_max[2], 1.0);
  EXPECT_EQ(db_max[0], 1.0);
  EXPECT_EQ(db_max[1], 0.5);
  EXPECT_EQ(db_max[2], 0.0);
  const auto [vmin, da_min, db_min] = fg::value_and_grad(fg::sum(fg::minimum(a, b)), a, b);
  EXPECT_EQ(vmin, 1.0 + 2.0 + 2.0);
  EXPECT_EQ(da_min[0], 1.0);
  EXPECT_EQ(da_min[1], 0.5);
  EXPECT_EQ(da_min[2], 0.0);
  EXPECT_EQ(db_min[0], 0.0);
  EXPECT_EQ(db_min[1], 0.5);
  EXPECT_EQ(db_min[2], 1.0);
}

// pow by hand: f = a^b at a = 2, b = 3: 8; df/da = b a^(b-1) = 12; df/db = a^b ln a = 8 ln 2.
TEST(PowMinMaxOpsByHand, PowGradientsOnScalars) {
  fg::Var<double, fg::Shape<>> a(2.0), b(3.0);
  const auto [value, da, db] = fg::value_and_grad(fg::pow(a, b), a, b);
  EXPECT_DOUBLE_EQ(value, 8.0);
  EXPECT_DOUBLE_EQ(da, 12.0);
  EXPECT_DOUBLE_EQ(db, 8.0 * std::log(2.0));
}

// pow at a zero base, as PyTorch defines it (torch.pow's backward): a^0 = 1 for every a, so
// d/da = 0 where b = 0; 0^b = 0 for every b > 0, so d/db = 0 where a = 0 and b >= 0. Elsewhere the
// usual formulas, infinities included: at a = 0, b = -1, d/da = -1 * 0^-2 = -inf and d/db = inf * ln 0 = -inf.
// Both layers, element by element: (a, b) = (0, 2), (0, 0), (2, 3), (0, 0.5), (0, -1).
TEST(PowMinMaxOpsByHand, PowAtAZeroBaseFollowsTorch) {
  const double inf = std::numeric_limits<double>::infinity();
  const Eigen::Array<double, 5, 1> da_expected{0.0, 0.0, 12.0, inf, -inf};
  const Eigen::Array<double, 5, 1> db_expected{0.0, 0.0, 8.0 * std::log(2.0), 0.0, -inf};
  fg::Var<double, fg::Shape<5>> a{0.0, 0.0, 2.0, 0.0, 0.0}, b{2.0, 0.0, 3.0, 0.5, -1.0};
  const auto [value, da, db] = fg::value_and_grad(fg::sum(fg::pow(a, b)), a, b);
  EXPECT_EQ(value, inf);  // 0 + 1 + 8 + 0 + inf
  fg::Tensor ta = fg::Tensor::from({0.0, 0.0, 2.0, 0.0, 0.0}, {5}).requires_grad_();
  fg::Tensor tb = fg::Tensor::from({2.0, 0.0, 3.0, 0.5, -1.0}, {5}).requires_grad_();
  fg::taped(fg::sum(fg::pow(ta, tb))).backward();
  for (int k = 0; k < 5; ++k) {
    SCOPED_TRACE("element " + std::to_string(k));
    EXPECT_EQ(da[k], da_expected[k]);
    EXPECT_EQ(db[k], db_expected[k]);
    EXPECT_EQ(ta.grad().data()[k], da_expected[k]);
    EXPECT_EQ(tb.grad().data()[k], db_expected[k]);
  }
}

}  // namespace
