// ops/unary_ops_test.cpp -- every element-wise unary op: value against std math, gradient by fg::gradcheck in every
// layer.
#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <fusegrad/fusegrad.hpp>

#include "support/finite_difference.hpp"
#include "support/gradcheck_layers.hpp"
#include "support/typed_cases.hpp"

namespace {

namespace fg = fusegrad;
using fg::test::as_array;

template <class C>
class UnaryOps : public ::testing::Test {
 protected:
  using T = typename C::value_type;
  // Eigen's vectorised float math is a few ulp off std's; double is checked to near ulp.
  static constexpr double value_tolerance = std::is_same_v<T, float> ? 1e-5 : 1e-12;

  std::mt19937 rng{fg::test::typed_seed};

  // Runs `op` on a (5,30) var -- whole fused blocks and a partial one -- with values drawn
  // from [lo, hi), kept at least 0.1 away from `kink` (where the op is not differentiable).
  // Checks every value against `reference` computed in double, and the gradient of the sum
  // with fg::gradcheck (the complex step where the op is analytic) in both layers.
  template <class Op, class Reference>
  void check(Op op, Reference reference, double lo, double hi, double kink = std::numeric_limits<double>::quiet_NaN()) {
    SCOPED_TRACE("typed_seed = " + std::to_string(fg::test::typed_seed));
    auto x = C::template make_var<5, 30>(rng, lo, hi);
    for (Eigen::Index i = 0; i < x.value().size(); ++i)
      if (std::abs(double(x.value()[i]) - kink) < 0.1) x.value()[i] += T(0.2);
    const auto y = as_array(fg::eval(op(x)));
    ASSERT_EQ(y.size(), 150);
    for (Eigen::Index i = 0; i < y.size(); ++i) {
      const double expected = reference(double(x.value()[i]));
      EXPECT_NEAR(double(y[i]), expected, value_tolerance * std::max(1.0, std::abs(expected)))
          << "at x = " << x.value()[i];
    }
    C::expect_gradcheck(op, x);
  }
};
TYPED_TEST_SUITE(UnaryOps, fg::test::OpCases, fg::test::CaseNames);

TYPED_TEST(UnaryOps, Negate) {
  this->check([](const auto& x) { return -x; }, [](double v) { return -v; }, -3, 3);
}
TYPED_TEST(UnaryOps, Exp) {
  this->check([](const auto& x) { return fg::exp(x); }, [](double v) { return std::exp(v); }, -3, 3);
}
TYPED_TEST(UnaryOps, Log) {
  this->check([](const auto& x) { return fg::log(x); }, [](double v) { return std::log(v); }, 0.2, 4);
}
TYPED_TEST(UnaryOps, Log1p) {
  this->check([](const auto& x) { return fg::log1p(x); }, [](double v) { return std::log1p(v); }, -0.5, 3);
}
TYPED_TEST(UnaryOps, Expm1) {
  this->check([](const auto& x) { return fg::expm1(x); }, [](double v) { return std::expm1(v); }, -3, 3);
}
TYPED_TEST(UnaryOps, Sqrt) {
  this->check([](const auto& x) { return fg::sqrt(x); }, [](double v) { return std::sqrt(v); }, 0.2, 4);
}
TYPED_TEST(UnaryOps, Square) {
  this->check([](const auto& x) { return fg::square(x); }, [](double v) { return v * v; }, -3, 3);
}
TYPED_TEST(UnaryOps, Abs) {
  this->check([](const auto& x) { return fg::abs(x); }, [](double v) { return std::abs(v); }, -3, 3, 0.0);
}
TYPED_TEST(UnaryOps, Sin) {
  this->check([](const auto& x) { return fg::sin(x); }, [](double v) { return std::sin(v); }, -3, 3);
}
TYPED_TEST(UnaryOps, Cos) {
  this->check([](const auto& x) { return fg::cos(x); }, [](double v) { return std::cos(v); }, -3, 3);
}
TYPED_TEST(UnaryOps, Tan) {
  this->check([](const auto& x) { return fg::tan(x); }, [](double v) { return std::tan(v); }, -1.2, 1.2);
}
TYPED_TEST(UnaryOps, Tanh) {
  this->check([](const auto& x) { return fg::tanh(x); }, [](double v) { return std::tanh(v); }, -3, 3);
}
TYPED_TEST(UnaryOps, Sigmoid) {
  this->check([](const auto& x) { return fg::sigmoid(x); }, [](double v) { return 1 / (1 + std::exp(-v)); }, -5, 5);
}
TYPED_TEST(UnaryOps, Reciprocal) {
  this->check([](const auto& x) { return fg::reciprocal(x); }, [](double v) { return 1 / v; }, -3, 3, 0.0);
}
TYPED_TEST(UnaryOps, Relu) {
  this->check([](const auto& x) { return fg::relu(x); }, [](double v) { return v > 0 ? v : 0.0; }, -3, 3, 0.0);
}
TYPED_TEST(UnaryOps, Softplus) {
  this->check([](const auto& x) { return fg::softplus(x); }, [](double v) { return std::log1p(std::exp(v)); }, -8, 8);
}
TYPED_TEST(UnaryOps, Clone) {
  this->check([](const auto& x) { return fg::clone(x); }, [](double v) { return v; }, -3, 3);
}
TYPED_TEST(UnaryOps, Log_sigmoid) {
  this->check([](const auto& x) { return fg::log_sigmoid(x); }, [](double v) { return -std::log1p(std::exp(-v)); }, -8,
              8);
}
TYPED_TEST(UnaryOps, Log1mexp) {
  this->check([](const auto& x) { return fg::log1mexp(x); }, [](double v) { return std::log(-std::expm1(v)); }, -8,
              -0.05);
}

// softplus and log_sigmoid at inputs where exp overflows: the exact limits, finite gradients, in
// both layers. softplus(x) -> x and log_sigmoid(x) -> 0 as x -> inf; softplus(x) -> 0 and
// log_sigmoid(x) -> x as x -> -inf; their gradients are sigmoid(x) and sigmoid(-x).
TEST(UnaryOpsAtLargeInputs, SoftplusAndLogSigmoidReachTheirLimits) {
  const Eigen::Array<double, 4, 1> x_values{-1000.0, -800.0, 800.0, 1000.0};
  const Eigen::Array<double, 4, 1> softplus_expected{0.0, 0.0, 800.0, 1000.0};
  const Eigen::Array<double, 4, 1> softplus_grad{0.0, 0.0, 1.0, 1.0};
  fg::Var<double, fg::Shape<4>> x{-1000.0, -800.0, 800.0, 1000.0};
  fg::Tensor t = fg::Tensor::from(std::vector<double>{-1000.0, -800.0, 800.0, 1000.0}, {4}).requires_grad_();
  const auto softplus_values = as_array(fg::eval(fg::softplus(x)));
  const auto log_sigmoid_values = as_array(fg::eval(fg::log_sigmoid(x)));
  const auto dsoftplus = fg::grad(fg::sum(fg::softplus(x)), x);
  const auto dlog_sigmoid = fg::grad(fg::sum(fg::log_sigmoid(x)), x);
  fg::taped(fg::sum(fg::softplus(t))).backward();
  const Eigen::ArrayXd dsoftplus_taped = t.grad().eigen();
  t.zero_grad();
  fg::Tensor(fg::sum(fg::log_sigmoid(t))).backward();
  const Eigen::ArrayXd dlog_sigmoid_fused = t.grad().eigen();
  for (int k = 0; k < 4; ++k) {
    SCOPED_TRACE("x = " + std::to_string(x_values[k]));
    EXPECT_EQ(softplus_values[k], softplus_expected[k]);
    EXPECT_EQ(log_sigmoid_values[k], -softplus_expected[3 - k]);  // log_sigmoid(x) = -softplus(-x)
    EXPECT_EQ(dsoftplus[k], softplus_grad[k]);
    EXPECT_EQ(dlog_sigmoid[k], softplus_grad[3 - k]);
    EXPECT_EQ(dsoftplus_taped[k], softplus_grad[k]);
    EXPECT_EQ(dlog_sigmoid_fused[k], softplus_grad[3 - k]);
  }
}

// The logistic loss mean(softplus(-m)) over margins m = (-800, 800, 0.5): (800 + 0 + log(1 + e^-0.5)) / 3,
// and d/dm = -sigmoid(-m) / 3 = (-1, 0, -sigmoid(-0.5)) / 3: finite where log1p(exp(-m)) overflows.
TEST(UnaryOpsAtLargeInputs, LogisticLossOfLargeMarginsIsFinite) {
  fg::Tensor m = fg::Tensor::from(std::vector<double>{-800.0, 800.0, 0.5}, {3}).requires_grad_();
  const fg::Tensor loss = fg::mean(fg::softplus(-m));
  loss.backward();
  EXPECT_NEAR(loss.item(), (800.0 + std::log1p(std::exp(-0.5))) / 3, 1e-13);
  EXPECT_EQ(m.grad().data()[0], -1.0 / 3);
  EXPECT_EQ(m.grad().data()[1], 0.0);
  EXPECT_NEAR(m.grad().data()[2], -1.0 / (1.0 + std::exp(0.5)) / 3, 1e-16);
}

// float's sigmoid in its tails, where Eigen 3.4's own float logistic gives e^x (x <= -9) and 1 (x >= 15.7): PyTorch
// 1.13's values for float32 and its gradients y (1 - y), in the static layer, one tape node and fg::taped.
TEST(UnaryOpsAtLargeInputs, FloatSigmoidIsAccurateInItsTails) {
  const std::vector<float> xs{-30.0f, -10.0f, -9.5f, 15.8f, 16.5f, 0.25f};
  const std::vector<float> torch_values{9.357623589846195e-14f, 4.539787187241018e-05f, 7.484622619813308e-05f,
                                        0.9999998807907104f,    0.9999998807907104f,    0.562176525592804f};
  const std::vector<float> torch_grads{9.357623589846195e-14f,  4.539580913842656e-05f,  7.484062371077016e-05f,
                                       1.1920927533992653e-07f, 1.1920927533992653e-07f, 0.24613407254219055f};
  fg::Var<float, fg::Shape<6>> x{xs[0], xs[1], xs[2], xs[3], xs[4], xs[5]};
  const auto values = as_array(fg::eval(fg::sigmoid(x)));
  const auto dx = fg::grad(fg::sum(fg::sigmoid(x)), x);
  fg::BasicTensor<float> t = fg::BasicTensor<float>::from(xs, {6}).requires_grad_();
  const float eps = std::numeric_limits<float>::epsilon();
  for (const bool taped : {false, true}) {
    t.zero_grad();
    const fg::BasicTensor<float> y = taped ? fg::taped(fg::sigmoid(t)) : fg::BasicTensor<float>(fg::sigmoid(t));
    fg::BasicTensor<float>(fg::sum(y)).backward();
    for (std::size_t k = 0; k < xs.size(); ++k) {
      SCOPED_TRACE((taped ? "fg::taped, x = " : "x = ") + std::to_string(xs[k]));
      const auto i = Eigen::Index(k);
      EXPECT_NEAR(values[i], torch_values[k], 2 * eps * torch_values[k]);
      EXPECT_NEAR(y.data()[k], torch_values[k], 2 * eps * torch_values[k]);
      EXPECT_NEAR(dx[i], torch_grads[k], 4 * eps * torch_grads[k]);
      EXPECT_NEAR(t.grad().data()[k], torch_grads[k], 4 * eps * torch_grads[k]);
    }
  }
}

// log1mexp where each naive form fails: log(1 - exp(x)) is log(0) = -inf at x = -1e-20, where the
// true value is log(1e-20) (1 - exp(x) = -x to 1e-40); log(-expm1(x)) is log(1) = 0 at x = -40, where
// the true value is -exp(-40) - exp(-80)/2 - ... The gradient is -exp(x) / (1 - exp(x)) = -1 / expm1(-x):
// -1e20 and -exp(-40) there; -0 at x = -1000, where the value is -0 (no NaN from inf / inf).
TEST(UnaryOpsAtLargeInputs, Log1mexpIsAccurateAtBothEnds) {
  const std::vector<double> xs{-1e-20, -40.0, -1000.0, -std::log(2.0)};
  const std::vector<double> expected{-20 * std::log(10.0), -std::exp(-40.0) - std::exp(-80.0) / 2, -0.0,
                                     -std::log(2.0)};
  const std::vector<double> expected_grad{-1e20, -std::exp(-40.0), -0.0, -1.0};
  fg::Var<double, fg::Shape<4>> x{xs[0], xs[1], xs[2], xs[3]};
  fg::Tensor t = fg::Tensor::from(xs, {4}).requires_grad_();
  const auto values = as_array(fg::eval(fg::log1mexp(x)));
  const auto dx = fg::grad(fg::sum(fg::log1mexp(x)), x);
  fg::taped(fg::sum(fg::log1mexp(t))).backward();
  const Eigen::ArrayXd dt = t.grad().eigen();
  for (std::size_t k = 0; k < xs.size(); ++k) {
    SCOPED_TRACE("x = " + std::to_string(xs[k]));
    const auto i = static_cast<Eigen::Index>(k);
    EXPECT_NEAR(values[i], expected[k], 1e-15 * std::abs(expected[k]));
    EXPECT_NEAR(dx[i], expected_grad[k], 1e-15 * std::abs(expected_grad[k]));
    EXPECT_NEAR(dt[i], expected_grad[k], 1e-15 * std::abs(expected_grad[k]));
  }
  // Its limits: -inf at 0, NaN above (log of a negative number).
  fg::Var<double, fg::Shape<2>> edge{0.0, 0.5};
  const auto at_edge = as_array(fg::eval(fg::log1mexp(edge)));
  EXPECT_EQ(at_edge[0], -std::numeric_limits<double>::infinity());
  EXPECT_TRUE(std::isnan(at_edge[1]));
}

// Hand-derived gradients at the kinks, where FD cannot judge: the library's documented choices.
TEST(UnaryOpsAtKinks, AbsAndReluHaveZeroGradientAtZero) {
  fg::Var<double, fg::Shape<3>> x{-2.0, 0.0, 3.0};
  const auto dabs = fg::grad(fg::sum(fg::abs(x)), x);
  EXPECT_EQ(dabs[0], -1.0);
  EXPECT_EQ(dabs[1], 0.0);
  EXPECT_EQ(dabs[2], 1.0);
  const auto drelu = fg::grad(fg::sum(fg::relu(x)), x);
  EXPECT_EQ(drelu[0], 0.0);
  EXPECT_EQ(drelu[1], 0.0);
  EXPECT_EQ(drelu[2], 1.0);
}

// The same choices on whole registers and their tails (37 elements: two blocks of 16 and a tail with AVX-512, nine of
// 4 with SSE2), with -0, NaN and an infinite upstream gradient, as PyTorch 1.13 gives them: abs's gradient is
// dy * sign(x), so inf * 0 is NaN; relu's is 0 where x <= 0 whatever dy is. In the static layer (dy = 1), one tape node
// and fg::taped.
template <class T>
void check_abs_and_relu_on_registers() {
  const T nan = std::numeric_limits<T>::quiet_NaN(), inf = std::numeric_limits<T>::infinity();
  const std::vector<T> nine{-2, 0, 3, -T(0), nan, 0, T(-0.5), nan, T(0.25)};
  const std::vector<T> nine_sign{-1, 0, 1, 0, 0, 0, -1, 0, 1};
  const std::size_t n = 37;
  std::vector<T> x_values(n), sign(n), upstream(n);
  for (std::size_t k = 0; k < n; ++k) {
    x_values[k] = nine[k % 9];
    sign[k] = nine_sign[k % 9];
    upstream[k] = k % 4 == 1 ? inf : T(1) + T(k) / 8;
  }
  const auto abs_grad = [&](T dy, std::size_t k) { return dy * sign[k]; };
  const auto relu_grad = [&](T dy, std::size_t k) { return x_values[k] <= 0 ? T(0) : dy; };
  const auto expect_same = [](T got, T want) {
    if (std::isnan(want))
      EXPECT_TRUE(std::isnan(got)) << got;
    else
      EXPECT_EQ(got, want);
  };

  fg::Var<T, fg::Shape<fg::dyn>> x(fg::Extents{n});
  std::copy(x_values.begin(), x_values.end(), x.value().begin());
  const auto dabs = fg::grad(fg::sum(fg::abs(x)), x);
  const auto drelu = fg::grad(fg::sum(fg::relu(x)), x);
  for (std::size_t k = 0; k < n; ++k) {
    SCOPED_TRACE("static layer, element " + std::to_string(k));
    expect_same(dabs[Eigen::Index(k)], abs_grad(T(1), k));
    expect_same(drelu[Eigen::Index(k)], relu_grad(T(1), k));
  }

  using Tensor = fg::BasicTensor<T>;
  Tensor t = Tensor::from(x_values, {n}).requires_grad_();
  const Tensor dy = Tensor::from(upstream, {n});
  const auto check_tape = [&](const auto& op, const auto& want, bool taped) {
    t.zero_grad();
    (taped ? fg::taped(op(t)) : Tensor(op(t))).backward(dy);
    for (std::size_t k = 0; k < n; ++k) {
      SCOPED_TRACE(std::string(taped ? "fg::taped" : "one tape node") + ", element " + std::to_string(k));
      expect_same(t.grad().data()[k], want(upstream[k], k));
    }
  };
  for (const bool taped : {false, true}) {
    check_tape([](const Tensor& u) { return fg::abs(u); }, abs_grad, taped);
    check_tape([](const Tensor& u) { return fg::relu(u); }, relu_grad, taped);
  }
}
TEST(UnaryOpsAtKinks, AbsAndReluOnRegisters) {
  check_abs_and_relu_on_registers<double>();
  check_abs_and_relu_on_registers<float>();
}

// A unary op applied to a sub-expression: the chain rule through an element-wise parent.
// d/dx sum(exp(2x)) = 2 exp(2x).
TEST(UnaryOpsChained, ExpOfAScaledVar) {
  fg::Var<double, fg::Shape<2>> x{0.5, -1.0};
  const auto dx = fg::grad(fg::sum(fg::exp(2.0 * x)), x);
  EXPECT_NEAR(dx[0], 2 * std::exp(1.0), 1e-14);
  EXPECT_NEAR(dx[1], 2 * std::exp(-2.0), 1e-14);
}

}  // namespace
