// expr/value_and_grad_into_test.cpp -- value_and_grad_into writes each gradient into the caller's memory: every
// kind of output, a var named twice, and bad outputs refused before anything is written.
#include <cmath>
#include <vector>

#include <gtest/gtest.h>

#include <fusegrad/fusegrad.hpp>

#include "support/expect_error.hpp"

namespace fg = fusegrad;

namespace {

using Dyn = fg::Shape<fg::dyn>;

// f(x, y) = sum(x * x * y) + sum(y): df/dx = 2 x y, df/dy = x^2 + 1.
template <class X, class Y>
auto f(const X& x, const Y& y) {
  return fg::sum(x * x * y) + fg::sum(y);
}

TEST(ValueAndGradInto, WritesOverWhatTheOutputsHeld) {
  const fg::Var<double, Dyn> x({3}, {1.0, 2.0, 3.0}), y({3}, {0.5, -1.0, 2.0});
  Eigen::ArrayXd dx = Eigen::ArrayXd::Constant(3, 99.0), dy = Eigen::ArrayXd::Constant(3, 99.0);
  const double value = fg::value_and_grad_into(f(x, y), std::tie(dx, dy), x, y);
  EXPECT_DOUBLE_EQ(value, 0.5 - 4.0 + 18.0 + 1.5);
  for (int i = 0; i < 3; ++i) {
    EXPECT_DOUBLE_EQ(dx[i], 2 * x.data()[i] * y.data()[i]);
    EXPECT_DOUBLE_EQ(dy[i], x.data()[i] * x.data()[i] + 1);
  }
}

TEST(ValueAndGradInto, MapsOverVectorsRefsAndNumbers) {
  const fg::Var<double, fg::Shape<4>> x{1.0, -2.0, 0.5, 3.0};
  const fg::Var<double, fg::Shape<>> s(1.5);
  std::vector<double> memory(4, 7.0);
  Eigen::Map<Eigen::ArrayXd> dx(memory.data(), 4);
  double ds = 7.0;
  // g = sum(s * exp(x)): dg/dx = s exp(x), dg/ds = sum(exp(x)).
  const double value = fg::value_and_grad_into(fg::sum(s * fg::exp(x)), std::tie(dx, ds), x, s);
  double sum_exp = 0;
  for (int i = 0; i < 4; ++i) {
    EXPECT_DOUBLE_EQ(memory[i], 1.5 * std::exp(x.data()[i]));
    sum_exp += std::exp(x.data()[i]);
  }
  EXPECT_DOUBLE_EQ(ds, sum_exp);
  EXPECT_DOUBLE_EQ(value, 1.5 * sum_exp);

  Eigen::VectorXd column(4);
  Eigen::Ref<Eigen::VectorXd> ref(column);
  double ignored = 0;
  fg::value_and_grad_into(fg::sum(s * fg::exp(x)), std::tie(ref, ignored), x, s);
  EXPECT_DOUBLE_EQ(column[3], 1.5 * std::exp(3.0));
}

// One var's output needs no std::tie: an Eigen vector, a Map made in the call, a number.
TEST(ValueAndGradInto, OneVarsOutputWithoutTie) {
  const fg::Var<double, fg::Shape<3>> x{1.0, -2.0, 0.5};
  Eigen::VectorXd dx(3);
  // sum(x * x * x): 3 x^2.
  EXPECT_DOUBLE_EQ(fg::value_and_grad_into(fg::sum(x * x * x), dx, x), 1.0 - 8.0 + 0.125);
  EXPECT_EQ(dx, Eigen::Vector3d(3.0, 12.0, 0.75));

  std::vector<double> memory(3, 7.0);
  fg::value_and_grad_into(fg::sum(x * x), Eigen::Map<Eigen::ArrayXd>(memory.data(), 3), x);
  EXPECT_EQ(memory, (std::vector<double>{2.0, -4.0, 1.0}));

  const fg::Var<double, fg::Shape<>> s(2.0);
  double ds = 0;
  EXPECT_DOUBLE_EQ(fg::value_and_grad_into(s * fg::exp(s), ds, s), 2.0 * std::exp(2.0));
  EXPECT_DOUBLE_EQ(ds, 3.0 * std::exp(2.0));  // (1 + s) e^s

  Eigen::VectorXd too_short(2);
  fg::test::expect_error<fg::shape_error>([&] { fg::value_and_grad_into(fg::sum(x * x), too_short, x); },
                                          {"gradient 0 holds 2 values but its var has shape (3)"});
}

TEST(ValueAndGradInto, RowMajorMatrixOfARankTwoVar) {
  // h = sum(a * [1 2 3]): dh/da_ij = j + 1, laid out row by row.
  const fg::Var<double, fg::Shape<2, 3>> a(fg::Extents{2, 3}, {1, 2, 3, 4, 5, 6});
  const fg::Const<double, fg::Shape<3>> w{1.0, 2.0, 3.0};
  Eigen::Matrix<double, 2, 3, Eigen::RowMajor> da;
  fg::value_and_grad_into(fg::sum(a * w), std::tie(da), a);
  EXPECT_EQ(da(0, 0), 1.0);
  EXPECT_EQ(da(0, 2), 3.0);
  EXPECT_EQ(da(1, 1), 2.0);
}

TEST(ValueAndGradInto, AVarNamedTwiceGetsItsWholeGradientInBoth) {
  const fg::Var<double, Dyn> x({2}, {3.0, -1.0});
  Eigen::ArrayXd first(2), second(2);
  fg::value_and_grad_into(fg::sum(x * x), std::tie(first, second), x, x);
  EXPECT_EQ(first[0], 6.0);
  EXPECT_EQ(first[1], -2.0);
  EXPECT_EQ(second[0], 6.0);
  EXPECT_EQ(second[1], -2.0);
  Eigen::ArrayXd both = Eigen::ArrayXd::Constant(2, 9.0);  // one buffer for both namings is the same gradient
  fg::value_and_grad_into(fg::sum(x * x), std::tie(both, both), x, x);
  EXPECT_EQ(both[0], 6.0);
  EXPECT_EQ(both[1], -2.0);
}

TEST(ValueAndGradInto, RefusesAWrongSizeBeforeWritingAnything) {
  const fg::Var<double, Dyn> x({3}, {1.0, 2.0, 3.0}), y({3}, {0.5, -1.0, 2.0});
  Eigen::ArrayXd dx = Eigen::ArrayXd::Constant(3, 99.0), dy = Eigen::ArrayXd::Constant(2, 99.0);
  try {
    fg::value_and_grad_into(f(x, y), std::tie(dx, dy), x, y);
    FAIL() << "a two-value output for a three-value var was accepted";
  } catch (const fg::shape_error& e) {
    EXPECT_NE(std::string(e.what()).find("gradient 1 holds 2 values but its var has shape (3)"), std::string::npos)
        << e.what();
  }
  EXPECT_TRUE((dx == 99.0).all()) << "the first output was written before the second was refused";
  EXPECT_TRUE((dy == 99.0).all());
}

TEST(ValueAndGradInto, RefusesABlockOfALargerMatrix) {
  const fg::Var<double, fg::Shape<2, 3>> a(fg::Extents{2, 3}, {1, 2, 3, 4, 5, 6});
  Eigen::Matrix<double, 2, 5, Eigen::RowMajor> big = Eigen::Matrix<double, 2, 5, Eigen::RowMajor>::Constant(4.0);
  Eigen::Ref<Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>> block = big.leftCols(3);
  EXPECT_THROW(fg::value_and_grad_into(fg::sum(a * a), std::tie(block), a), fg::shape_error);
  EXPECT_TRUE((big.array() == 4.0).all()) << "the block's neighbours were written";
}

TEST(ValueAndGradInto, RefusesOperandsThatDoNotBroadcastBeforeWritingAnything) {
  const fg::Var<double, Dyn> x({3}, {1.0, 2.0, 3.0}), y({4}, {1.0, 2.0, 3.0, 4.0});
  Eigen::ArrayXd dx = Eigen::ArrayXd::Constant(3, 99.0), dy = Eigen::ArrayXd::Constant(4, 99.0);
  EXPECT_THROW(fg::value_and_grad_into(fg::sum(x * y), std::tie(dx, dy), x, y), fg::shape_error);
  EXPECT_TRUE((dx == 99.0).all());
  EXPECT_TRUE((dy == 99.0).all());
}

// A scalar operand whose extents a materialised node below it checks (the dot product of two vectors of unknown
// lengths): the mismatch is refused before the other reduction writes its gradient.
TEST(ValueAndGradInto, RefusesAMismatchBelowAScalarOperandBeforeWritingAnything) {
  const fg::Var<double, Dyn> u({2}, {1.0, 2.0}), a({3}, {1.0, 2.0, 3.0}), b({4}, {1.0, 2.0, 3.0, 4.0});
  Eigen::ArrayXd du = Eigen::ArrayXd::Constant(2, 99.0);
  EXPECT_THROW(fg::value_and_grad_into(fg::sum(u) + fg::sum(u * fg::matmul(a, b)), std::tie(du), u), fg::shape_error);
  EXPECT_TRUE((du == 99.0).all());
}

// The same with a static-size var beside the reduction (binary_expr's extents skip an operand of static size), and
// an empty max whose value_error an evaluation would raise: nothing is written either.
TEST(ValueAndGradInto, RefusesAMismatchBesideAStaticVarBeforeWritingAnything) {
  const fg::Var<double, fg::Shape<2>> u{1.0, 2.0};
  const fg::Var<double, Dyn> x({3}, {1.0, 2.0, 3.0}), y({4}, {1.0, 2.0, 3.0, 4.0}), empty(Eigen::ArrayXd(0));
  Eigen::Array2d du = Eigen::Array2d::Constant(99.0);
  fg::test::expect_error<fg::shape_error>(
      [&] { (void)fg::value_and_grad_into(fg::sum(u * fg::sum(x * y)), std::tie(du), u); }, {"(3)", "(4)"});
  EXPECT_TRUE((du == 99.0).all());
  EXPECT_THROW(fg::value_and_grad_into(fg::sum(u) + fg::sum(u * fg::sum(x * y)), std::tie(du), u), fg::shape_error);
  EXPECT_TRUE((du == 99.0).all());
  EXPECT_THROW(fg::value_and_grad_into(fg::sum(u * fg::max(empty)), std::tie(du), u), fg::value_error);
  EXPECT_TRUE((du == 99.0).all());
}

// An output over the values of a leaf that is not differentiated (a Const view, a var not named) would be zeroed
// before the sweep reads them.
TEST(ValueAndGradInto, RefusesAnOutputOverAnotherLeafsValues) {
  const fg::Var<double, Dyn> x({3}, {1.0, 2.0, 3.0});
  fg::Var<double, Dyn> y({3}, {4.0, 5.0, 6.0});
  auto y_values = y.value();
  fg::test::expect_error<fg::value_error>([&] { (void)fg::value_and_grad_into(fg::sum(x * y), std::tie(y_values), x); },
                                          {"gradient 0", "leaf of f"});
  EXPECT_EQ(y.data()[0], 4.0);
  Eigen::ArrayXd constants(3);
  constants << 10.0, 20.0, 30.0;
  const fg::Const<double, Dyn, fg::view> c(constants.data(), {3});
  EXPECT_THROW(fg::value_and_grad_into(fg::sum(x * c), std::tie(constants), x), fg::value_error);
  EXPECT_EQ(constants[2], 30.0);
  Eigen::ArrayXd dx(3);
  EXPECT_DOUBLE_EQ(fg::value_and_grad_into(fg::sum(x * c), std::tie(dx), x), 140.0);  // its own memory: fine
  EXPECT_EQ(dx[1], 20.0);
}

TEST(ValueAndGradInto, RefusesOutputsThatShareMemory) {
  fg::Var<double, Dyn> x({2}, {1.0, 2.0});
  const fg::Var<double, Dyn> y({2}, {3.0, 4.0});
  auto values = x.value();  // a writable view of x's own values: zeroing it would change f
  EXPECT_THROW(fg::value_and_grad_into(fg::sum(x * y), std::tie(values, values), x, y), fg::value_error);
  EXPECT_EQ(x.data()[1], 2.0);
  Eigen::ArrayXd shared = Eigen::ArrayXd::Constant(2, 8.0);
  EXPECT_THROW(fg::value_and_grad_into(fg::sum(x * y), std::tie(shared, shared), x, y), fg::value_error);
  EXPECT_TRUE((shared == 8.0).all());
}

TEST(ValueAndGradInto, RefusesAStridedOutput) {
  const fg::Var<double, Dyn> x({2}, {1.0, 2.0});
  Eigen::ArrayXd memory = Eigen::ArrayXd::Constant(4, 5.0);
  Eigen::Map<Eigen::ArrayXd, 0, Eigen::InnerStride<2>> every_other(memory.data(), 2);
  EXPECT_THROW(fg::value_and_grad_into(fg::sum(x * x), std::tie(every_other), x), fg::shape_error);
  EXPECT_TRUE((memory == 5.0).all());
}

TEST(ValueAndGradInto, AgreesWithValueAndGradOnAFloatChain) {
  const fg::Var<float, Dyn> x(Eigen::ArrayXf::LinSpaced(50, -2.0f, 2.0f));
  const auto g = [&] { return fg::sum(fg::sin(x) * fg::exp(-x * x) + fg::log1p(x * x)); };
  const auto [value, dx] = fg::value_and_grad(g(), x);
  Eigen::ArrayXf into(50);
  EXPECT_FLOAT_EQ(fg::value_and_grad_into(g(), std::tie(into), x), value);
  for (int i = 0; i < 50; ++i) {
    const float v = x.data()[i];
    const float by_hand = std::cos(v) * std::exp(-v * v) - 2 * v * std::sin(v) * std::exp(-v * v) + 2 * v / (1 + v * v);
    EXPECT_NEAR(into[i], by_hand, 1e-5f) << i;
    EXPECT_FLOAT_EQ(into[i], dx[i]) << i;
  }
}

}  // namespace
