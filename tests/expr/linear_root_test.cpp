// expr/linear_root_test.cpp -- roots built linearly from full sums and means (-sum(f), sum(f) / n,
// 0.5 * mean(e * e) + 0.01 * sum(w * w)): which expressions are linear roots, and their values and gradients,
// swept in one pass, in the static layer and in a tape node, against closed forms and gradcheck.
#include <cmath>
#include <complex>
#include <tuple>
#include <utility>

#include <gtest/gtest.h>
#include <Eigen/Core>

#include <fusegrad/check/gtest.hpp>
#include <fusegrad/fusegrad.hpp>

#include "support/expect_array.hpp"

namespace {

namespace fg = fusegrad;
using Vector = fg::Var<double, fg::Shape<fg::dyn>>;
using Data = fg::Const<double, fg::Shape<fg::dyn>>;

const Vector x_var(Eigen::VectorXd::LinSpaced(5, -1.0, 1.5));
const fg::Var<double, fg::Shape<3>> w_var{0.5, -0.25, 2.0};
const fg::Var<double, fg::Shape<>> scalar_var(2.0);

// Which roots take the one-pass sweep: the linear ops over full reductions, with numbers fixed in the
// expression; not a product of reductions, nor a factor that takes a gradient.
static_assert(fg::LinearRoot<decltype(fg::sum(x_var))>);
static_assert(fg::LinearRoot<decltype(-fg::sum(fg::sin(x_var)))>);
static_assert(fg::LinearRoot<decltype(fg::sum(x_var) / 5.0)>);
static_assert(fg::LinearRoot<decltype(1.0 - 2.0 * fg::mean(x_var * x_var))>);
static_assert(fg::LinearRoot<decltype(0.5 * fg::mean(x_var * x_var) + 0.01 * fg::sum(w_var * w_var))>);
static_assert(fg::LinearRoot<decltype(-(fg::sum(x_var) - fg::sum(w_var)) * 3.0)>);
static_assert(!fg::LinearRoot<decltype(fg::sin(x_var))>);
static_assert(!fg::LinearRoot<decltype(fg::sum(x_var) * fg::sum(w_var))>);
static_assert(!fg::LinearRoot<decltype(scalar_var * fg::sum(x_var))>);
static_assert(!fg::LinearRoot<decltype(5.0 / fg::sum(x_var))>);
static_assert(!fg::LinearRoot<decltype(fg::exp(fg::sum(x_var)))>);
static_assert(!fg::LinearRoot<decltype(fg::sum(std::declval<const fg::Var<double, fg::Shape<2, 3>>&>(), fg::axes<0>))>,
              "a sum over some axes is not a full reduction");
static_assert(!fg::LinearRoot<decltype(fg::Const<double, fg::Shape<>, fg::view>(nullptr) * fg::sum(x_var))>,
              "a Const that views the caller's memory may change before a deferred value is computed");

Eigen::ArrayXd x_values() { return Eigen::ArrayXd::LinSpaced(5, -1.0, 1.5); }

TEST(LinearRoot, NegatedSumInTheStaticLayer) {
  const auto [value, dx] = fg::value_and_grad(-fg::sum(fg::sin(x_var)), x_var);
  EXPECT_NEAR(value, -x_values().sin().sum(), 1e-15);
  fg::test::expect_array_near(dx, -x_values().cos(), 1e-15);
}

TEST(LinearRoot, SumOverAConstantPlusAConstant) {
  const auto [value, dx] = fg::value_and_grad(fg::sum(x_var * x_var) / 4.0 - 1.0, x_var);
  EXPECT_NEAR(value, x_values().square().sum() / 4.0 - 1.0, 1e-15);
  fg::test::expect_array_near(dx, x_values() / 2.0, 1e-15);
}

TEST(LinearRoot, DividedByAConst) {  // a literal divisor becomes a product; a Const stays a quotient
  const fg::Const<double, fg::Shape<>> four(4.0);
  const auto [value, dx] = fg::value_and_grad(fg::sum(x_var * x_var) / four, x_var);
  EXPECT_NEAR(value, x_values().square().sum() / 4.0, 1e-15);
  fg::test::expect_array_near(dx, x_values() / 2.0, 1e-15);
}

TEST(LinearRoot, ComplexScalars) {
  using C = std::complex<double>;
  const fg::Var<C, fg::Shape<2>> z{C(1.0, 2.0), C(-0.5, 0.25)};
  const auto [value, dz] = fg::value_and_grad(1.0 - fg::sum(z * z) / 2.0, z);
  EXPECT_NEAR(std::abs(value - (1.0 - (C(1.0, 2.0) * C(1.0, 2.0) + C(-0.5, 0.25) * C(-0.5, 0.25)) / 2.0)), 0.0, 1e-15);
  EXPECT_NEAR(std::abs(dz[0] - C(-1.0, -2.0)), 0.0, 1e-15);
  EXPECT_NEAR(std::abs(dz[1] - C(0.5, -0.25)), 0.0, 1e-15);
}

// The reductions' shapes are checked before any gradient is written: the second reduction's
// operands do not broadcast, and neither the first's gradient nor a caller's buffer changes.
TEST(LinearRoot, AShapeMismatchWritesNothing) {
  fg::Tensor w = fg::Tensor::from({0.5, -0.25, 2.0}, {3}).requires_grad_();
  const fg::Tensor a = fg::Tensor::from({1.0, 2.0}, {2});
  fg::Tensor(fg::sum(w)).backward();
  EXPECT_THROW((void)fg::Tensor(fg::sum(w * w) + fg::sum(w * a)), fg::shape_error);  // when recorded
  fg::test::expect_array_near(w.grad().eigen(), {1.0, 1.0, 1.0});

  const Data bad(Eigen::VectorXd::Ones(4));
  Eigen::VectorXd dx = Eigen::VectorXd::Constant(5, 7.0);
  EXPECT_THROW((void)fg::value_and_grad_into(fg::sum(x_var) - fg::sum(x_var * bad), std::tie(dx), x_var),
               fg::shape_error);
  fg::test::expect_array_near(dx, Eigen::ArrayXd::Constant(5, 7.0));
  EXPECT_THROW((void)fg::value_and_grad(fg::sum(x_var) / 2.0 + fg::sum(x_var * bad), x_var), fg::shape_error);
}

TEST(LinearRoot, ConstantsOnTheLeft) {
  const auto [value, dx] = fg::value_and_grad(1.0 - 3.0 * fg::mean(fg::exp(x_var)), x_var);
  EXPECT_NEAR(value, 1.0 - 3.0 * x_values().exp().mean(), 1e-14);
  fg::test::expect_array_near(dx, -3.0 * x_values().exp() / 5.0, 1e-15);
}

// A loss with an L2 penalty: two reductions over different vars and shapes, one of them twice.
TEST(LinearRoot, LossPlusPenaltyMatchesTheClosedForm) {
  const Data y(Eigen::VectorXd::LinSpaced(5, 0.25, -0.75));
  const Vector w(Eigen::VectorXd::LinSpaced(5, 0.5, 1.5));
  const auto loss = 0.5 * fg::mean((x_var * w - y) * (x_var * w - y)) + 0.01 * fg::sum(w * w) - fg::sum(w) / 8.0;
  const auto [value, dx, dw] = fg::value_and_grad(loss, x_var, w);
  const Eigen::ArrayXd xs = x_values(), ws = Eigen::ArrayXd::LinSpaced(5, 0.5, 1.5),
                       ys = Eigen::ArrayXd::LinSpaced(5, 0.25, -0.75), e = xs * ws - ys;
  EXPECT_NEAR(value, 0.5 * e.square().mean() + 0.01 * ws.square().sum() - ws.sum() / 8.0, 1e-15);
  fg::test::expect_array_near(dx, e * ws / 5.0, 1e-15);
  fg::test::expect_array_near(dw, e * xs / 5.0 + 0.02 * ws - 1.0 / 8.0, 1e-15);
}

TEST(LinearRoot, GradcheckAgrees) {
  const auto fn = [](const auto& x, const auto& w) {
    return -(fg::mean(fg::tanh(x) * x) - 0.25 * fg::sum(fg::sin(w))) * 2.0 + 1.0;
  };
  EXPECT_TRUE(fg::gtest::gradcheck(fn, x_var, w_var));
}

TEST(LinearRoot, IntoCallerStorage) {
  Eigen::VectorXd dx(5);
  const double value = fg::value_and_grad_into(-fg::sum(x_var * x_var) / 2.0, std::tie(dx), x_var);
  EXPECT_NEAR(value, -x_values().square().sum() / 2.0, 1e-15);
  fg::test::expect_array_near(dx, -x_values(), 1e-15);
}

// On the tape the root is one node whose value waits for backward, which computes it in the same pass.
TEST(LinearRoot, TapeNodeValueBeforeAndAfterBackward) {
  fg::Tensor x = fg::Tensor::from(x_values()).requires_grad_();
  const fg::Tensor before = -fg::sum(fg::sin(x)) * 2.0;
  EXPECT_TRUE(before.impl()->value_pending.load());                  // deferred
  EXPECT_NEAR(before.item(), -2.0 * x_values().sin().sum(), 1e-14);  // asked for before backward
  before.backward();
  fg::test::expect_array_near(x.grad().eigen(), -2.0 * x_values().cos(), 1e-15);

  x.zero_grad();
  const fg::Tensor deferred = fg::sum(x * x) / 4.0 + 3.0;
  deferred.backward(fg::Tensor::scalar(2.0));
  EXPECT_FALSE(deferred.impl()->value_pending.load());                         // computed by the backward
  EXPECT_NEAR(deferred.item(), x_values().square().sum() / 4.0 + 3.0, 1e-14);  // computed by backward
  fg::test::expect_array_near(x.grad().eigen(), x_values(), 1e-15);
}

TEST(LinearRoot, TapeNodeWithTwoReductions) {
  fg::Tensor w = fg::Tensor::from({0.5, -0.25, 2.0}, {3}).requires_grad_();
  const fg::Tensor x = fg::Tensor::from(x_values());
  const fg::Tensor loss = 0.5 * fg::mean(x * x * fg::sum(w)) + 0.01 * fg::sum(w * w);
  loss.backward();
  const Eigen::Array3d ws(0.5, -0.25, 2.0);
  EXPECT_NEAR(loss.item(), 0.5 * x_values().square().mean() * ws.sum() + 0.01 * ws.square().sum(), 1e-14);
  fg::test::expect_array_near(w.grad().eigen(), 0.5 * x_values().square().mean() + 0.02 * ws, 1e-15);
}

}  // namespace
