// ops/arithmetic_ops_test.cpp -- + - * /: values and gradients in every operand layout (support/binary_op_check.hpp).
#include <gtest/gtest.h>

#include <fusegrad/fusegrad.hpp>

#include "support/binary_op_check.hpp"

namespace {

namespace fg = fusegrad;
using fg::test::Domain;

template <class C>
using ArithmeticOps = fg::test::BinaryOpCheck<C>;
TYPED_TEST_SUITE(ArithmeticOps, fg::test::OpCases, fg::test::CaseNames);

TYPED_TEST(ArithmeticOps, Add) {
  this->check([](const auto& a, const auto& b) { return a + b; }, [](double a, double b) { return a + b; },
              Domain{-3, 3}, Domain{-3, 3});
}
TYPED_TEST(ArithmeticOps, Sub) {
  this->check([](const auto& a, const auto& b) { return a - b; }, [](double a, double b) { return a - b; },
              Domain{-3, 3}, Domain{-3, 3});
}
TYPED_TEST(ArithmeticOps, Mul) {
  this->check([](const auto& a, const auto& b) { return a * b; }, [](double a, double b) { return a * b; },
              Domain{-3, 3}, Domain{-3, 3});
}
TYPED_TEST(ArithmeticOps, Div) {
  this->check([](const auto& a, const auto& b) { return a / b; }, [](double a, double b) { return a / b; },
              Domain{-3, 3}, Domain{0.5, 3});
}

// Broadcast gradients by hand: f = sum(a * b) with a (3,1), b (1,4):
//   df/da_i = sum_j b_j,  df/db_j = sum_i a_i.
TEST(ArithmeticOpsByHand, BroadcastGradientsAreSummedBackToEachOperandShape) {
  fg::Var<double, fg::Shape<3, 1>> a{1.0, 2.0, 3.0};
  fg::Var<double, fg::Shape<1, 4>> b{10.0, 20.0, 30.0, 40.0};
  const auto [value, da, db] = fg::value_and_grad(fg::sum(a * b), a, b);
  EXPECT_EQ(value, 6.0 * 100.0);
  ASSERT_EQ(da.size(), 3);
  ASSERT_EQ(db.size(), 4);
  for (Eigen::Index i = 0; i < 3; ++i) EXPECT_EQ(da[i], 100.0);
  for (Eigen::Index j = 0; j < 4; ++j) EXPECT_EQ(db[j], 6.0);
}

// f = sum(s - x) with a scalar Var s and x of 5 elements: df/ds = 5, df/dx = -1 each.
TEST(ArithmeticOpsByHand, AScalarVarCollectsTheGradientOfEveryElement) {
  fg::Var<double, fg::Shape<>> s(2.0);
  fg::Var<double, fg::Shape<5>> x{1.0, 2.0, 3.0, 4.0, 5.0};
  const auto [value, ds, dx] = fg::value_and_grad(fg::sum(s - x), s, x);
  EXPECT_EQ(value, 10.0 - 15.0);
  EXPECT_EQ(ds, 5.0);
  for (Eigen::Index i = 0; i < 5; ++i) EXPECT_EQ(dx[i], -1.0);
}

// 2 / x: d/dx = -2 / x^2; x / 2: d/dx = 1/2.
TEST(ArithmeticOpsByHand, NumbersOnEitherSideOfADivision) {
  fg::Var<double, fg::Shape<2>> x{4.0, -0.5};
  const auto [left, dleft] = fg::value_and_grad(fg::sum(2.0 / x), x);
  EXPECT_EQ(left, 0.5 - 4.0);
  EXPECT_EQ(dleft[0], -2.0 / 16.0);
  EXPECT_EQ(dleft[1], -8.0);
  const auto [right, dright] = fg::value_and_grad(fg::sum(x / 2.0), x);
  EXPECT_EQ(right, 1.75);
  EXPECT_EQ(dright[0], 0.5);
  EXPECT_EQ(dright[1], 0.5);
}

}  // namespace
