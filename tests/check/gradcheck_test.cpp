// check/gradcheck_test.cpp -- fg::gradcheck in both layers: it passes right gradients, catches a wrong VJP and points
// at the element where it is furthest off, says when the complex step does not apply, and leaves tensors alone.
#include <cmath>
#include <limits>
#include <sstream>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include <gtest/gtest.h>

#include <fusegrad/check/gtest.hpp>
#include <fusegrad/fusegrad.hpp>

#include "support/expect_error.hpp"

namespace {

namespace fg = fusegrad;

// An op spec whose VJP is wrong on purpose: the value is sin(x), the VJP says sin(x) instead
// of cos(x). Both layers run it, as they run every op spec.
struct wrong_sin_op {
  static constexpr std::string_view name = "wrong_sin";
  static constexpr std::string_view backward_name = "WrongSinBackward";
  static constexpr fg::vjp_needs needs = fg::vjp_needs::input;
  static auto value(const auto& x) { return x.sin(); }
  static auto vjp(const auto& dy, const auto& x, const auto& /*y*/) { return dy * x.sin(); }
};
static_assert(fg::UnaryOp<wrong_sin_op>);
constexpr auto wrong_sin(fg::Differentiable auto&& x) {
  return fg::detail::make_unary<wrong_sin_op>(std::forward<decltype(x)>(x));
}

constexpr auto right = [](const auto& x, const auto& s) { return fg::sum(fg::sin(x) * s + fg::exp(x * s)); };

// The GoogleTest form lives in fusegrad::gtest: under a using-directive for fusegrad, GoogleTest's `testing` stays
// unambiguous.
namespace with_using_directive {
using namespace fusegrad;
static_assert(std::is_class_v<testing::Test>);
}  // namespace with_using_directive

TEST(Gradcheck, ARightGradientPassesAgainstTheComplexStepToRounding) {
  const fg::Var<double, fg::Shape<3>> x{0.5, -1.0, 2.0};
  const fg::Var<double, fg::Shape<>> s(1.5);
  const fg::GradcheckReport report = fg::gradcheck(right, x, s);
  EXPECT_TRUE(report) << report;
  EXPECT_EQ(report.reference, "complex step");
  EXPECT_TRUE(report.complex_step_note.empty());
  EXPECT_EQ(report.elements, 4u);
  EXPECT_LT(report.max_rel_error, 1e-13);  // the complex step is exact to rounding
}

// A view Var is checked as an owning one (gradcheck works on copies), and a wrong VJP still fails through it; the
// caller's memory is left as it was.
TEST(Gradcheck, AViewVarIsAnInputLikeAnyVar) {
  Eigen::VectorXd values(3);
  values << 0.5, -1.0, 2.0;
  const Eigen::VectorXd before = values;
  const fg::Var<double, fg::Shape<fg::dyn>, fg::view> x(values);
  const fg::Var<double, fg::Shape<>> s(1.5);
  EXPECT_TRUE(fg::gtest::gradcheck(right, x, s));
  EXPECT_FALSE(fg::gradcheck([](const auto& v) { return fg::sum(wrong_sin(v)); }, x));
  EXPECT_EQ(values, before);
}

TEST(Gradcheck, TheSameFunctionOnTensors) {
  const fg::Tensor x = fg::Tensor::from({0.5, -1.0, 2.0}, {3});
  const fg::Tensor s = fg::Tensor::scalar(1.5);
  const fg::GradcheckReport report = fg::gradcheck(right, x, s);
  EXPECT_TRUE(report) << report;
  EXPECT_EQ(report.reference, "complex step");
  EXPECT_LT(report.max_rel_error, 1e-13);
  EXPECT_TRUE(fg::gtest::gradcheck(
      [](const auto& a, const auto& b) { return fg::taped(fg::sum(fg::sin(a) * b + fg::exp(a * b))); }, x, s));
}

// pow of a negative base to an integer power under the complex step: exp(b log a) would lose the step (arg(a + ih)
// rounds to pi) and spoil the reference of every element; the power is multiplied out instead.
TEST(Gradcheck, PowOfNegativeBasesPassesAgainstTheComplexStep) {
  const fg::Var<double, fg::Shape<3>> x{-2.0, 3.0, -0.5};
  for (const double b : {2.0, 3.0, -1.0}) {
    const fg::GradcheckReport report = fg::gradcheck([b](const auto& v) { return fg::sum(fg::pow(v, b)); }, x);
    EXPECT_TRUE(report) << report;
    EXPECT_EQ(report.reference, "complex step");
    EXPECT_LT(report.max_rel_error, 1e-13);
  }
  EXPECT_TRUE(fg::gtest::gradcheck([](const auto& v) { return fg::taped(fg::sum(fg::pow(v, 3.0))); },
                                   fg::Tensor::from({-1.0, 2.0}, {2})));
}

// d/dx sum(wrong_sin(x)) should be cos(x); the VJP gives sin(x). At x = (0, 1, 2) the errors
// are 1, 0.30 and 1.33; measured against each element's tolerance the worst is x = 2.
template <class Input>
void expect_caught(const Input& x) {
  const fg::GradcheckReport report = fg::gradcheck([](const auto& v) { return fg::sum(wrong_sin(v)); }, x);
  EXPECT_FALSE(report);
  EXPECT_EQ(report.reference, "complex step");
  EXPECT_EQ(report.worst_input, 0u);
  EXPECT_EQ(report.worst_index, (std::vector<std::size_t>{2}));
  EXPECT_NEAR(report.worst_analytic, std::sin(2.0), 1e-6);
  EXPECT_NEAR(report.worst_reference, std::cos(2.0), 1e-12);
  EXPECT_NEAR(report.worst_central, std::cos(2.0), 1e-8);
  EXPECT_NEAR(report.max_abs_error, std::sin(2.0) - std::cos(2.0), 1e-6);
  std::ostringstream text;
  text << report;
  EXPECT_NE(text.str().find("FAILED"), std::string::npos) << text.str();
  EXPECT_NE(text.str().find("input 0 at (2)"), std::string::npos) << text.str();
}

TEST(Gradcheck, AWrongVjpFailsAndTheReportPointsAtTheWorstElement) {
  expect_caught(fg::Var<double, fg::Shape<3>>{0.0, 1.0, 2.0});
  expect_caught(fg::Var<double, fg::Shape<fg::dyn>>{fg::Extents{3}, {0.0, 1.0, 2.0}});
  expect_caught(fg::Tensor::from({0.0, 1.0, 2.0}, {3}));
  expect_caught(fg::Var<float, fg::Shape<3>>{0.0f, 1.0f, 2.0f});
  expect_caught(fg::FloatTensor::from({0.0f, 1.0f, 2.0f}, {3}));
}

// The worst element of a matrix input is named by row and column.
TEST(Gradcheck, TheWorstElementOfAMatrixIsAnIndexPair) {
  const fg::Var<double, fg::Shape<2, 3>> m{0.1, 0.2, 0.3, 0.4, 0.5, 2.0};
  const fg::Var<double, fg::Shape<>> s(1.0);
  const fg::GradcheckReport report =
      fg::gradcheck([](const auto& a, const auto& b) { return fg::sum(wrong_sin(a) * b); }, m, s);
  EXPECT_FALSE(report);
  EXPECT_EQ(report.worst_input, 0u);
  EXPECT_EQ(report.worst_index, (std::vector<std::size_t>{1, 2}));
}

TEST(Gradcheck, FloatGradientsPassAgainstDoubleReferencesWithFloatTolerances) {
  const fg::Var<float, fg::Shape<4>> x{0.25f, -0.5f, 1.0f, 3.0f};
  const fg::GradcheckReport report =
      fg::gradcheck([](const auto& v) { return fg::mean(fg::tanh(v) * fg::exp(-v * v) + fg::log1p(v * v)); }, x);
  EXPECT_TRUE(report) << report;
  EXPECT_DOUBLE_EQ(report.rtol, 1e-3);
  EXPECT_GT(report.max_abs_error, 0.0);  // float rounding, seen against double
}

// abs has a kink, so the complex step would differentiate |x| as x: gradcheck falls back to
// central differences and says why, instead of reporting a failure that is not there.
TEST(Gradcheck, TheComplexStepIsNotUsedWhereTheFunctionIsNotAnalytic) {
  const fg::Var<double, fg::Shape<3>> x{0.5, -1.0, 2.0};
  const fg::GradcheckReport report = fg::gradcheck([](const auto& v) { return fg::sum(fg::abs(v) * v); }, x);
  EXPECT_TRUE(report) << report;
  EXPECT_EQ(report.reference, "central differences");
  EXPECT_NE(report.complex_step_note.find("abs"), std::string::npos) << report.complex_step_note;

  // On the tape the recorded graph is what is checked: relu only in the branch taken.
  const fg::Tensor t = fg::Tensor::from({0.5, -1.0, 2.0}, {3});
  auto branchy = [](const fg::Tensor& a) -> fg::Tensor {
    fg::Tensor total = fg::sum(a * a);
    if (total.item() > 1.0) return fg::sum(fg::relu(a) * a);
    return total;
  };
  const fg::GradcheckReport taped = fg::gradcheck(branchy, t);
  EXPECT_TRUE(taped) << taped;
  EXPECT_NE(taped.complex_step_note.find("relu"), std::string::npos) << taped.complex_step_note;
  EXPECT_NE(taped.complex_step_note.find("analytic"), std::string::npos);
}

TEST(Gradcheck, OptionsComeLast) {
  const fg::Var<double, fg::Shape<2>> x{0.5, 1.5};
  const auto f = [](const auto& v) { return fg::sum(fg::sin(v)); };
  const fg::GradcheckReport off = fg::gradcheck(f, x, fg::GradcheckOptions{.complex_step = false});
  EXPECT_TRUE(off);
  EXPECT_EQ(off.reference, "central differences");
  EXPECT_NE(off.complex_step_note.find("turned off"), std::string::npos);
  const fg::GradcheckReport tight = fg::gradcheck(f, x, fg::GradcheckOptions{.atol = 0.0, .rtol = 1e-15});
  EXPECT_DOUBLE_EQ(tight.rtol, 1e-15);
  EXPECT_DOUBLE_EQ(tight.atol, 0.0);
}

// A fn written for fg::Tensor only cannot run on complex tensors: central differences, said so.
TEST(Gradcheck, AFunctionOfRealTensorsOnlyIsCheckedByCentralDifferences) {
  const fg::Tensor t = fg::Tensor::from({0.5, 1.5}, {2});
  const fg::GradcheckReport report = fg::gradcheck([](const fg::Tensor& a) { return fg::Tensor(fg::sum(a * a)); }, t);
  EXPECT_TRUE(report) << report;
  EXPECT_EQ(report.reference, "central differences");
  EXPECT_NE(report.complex_step_note.find("complex tensors"), std::string::npos);
}

// gradcheck runs fn on copies: the inputs' values, gradients and requires_grad stay as they were.
TEST(Gradcheck, TensorsAndTheirGradientsAreLeftAsTheyWere) {
  fg::Tensor w = fg::Tensor::from({1.0, 2.0}, {2}).requires_grad_();
  fg::Tensor loss = fg::sum(w * w);
  loss.backward();
  const fg::Tensor data = fg::Tensor::from({3.0, 4.0}, {2});
  EXPECT_TRUE(fg::gtest::gradcheck([](const auto& a, const auto& b) { return fg::sum(a * b * a); }, w, data));
  EXPECT_EQ(w.grad().data()[0], 2.0);
  EXPECT_EQ(w.grad().data()[1], 4.0);
  EXPECT_EQ(w.data()[1], 2.0);
  EXPECT_FALSE(data.requires_grad());
  EXPECT_FALSE(data.grad().defined());
}

// Tensors that fn captures keep their gradients and their graphs: the check takes its gradients with fg::grad, as
// torch.autograd.gradcheck does, not with backward(), which would add to w's gradient and free h's nodes.
TEST(Gradcheck, CapturedTensorsKeepTheirGradientsAndGraphs) {
  const fg::Tensor x = fg::Tensor::from({0.5, -1.0, 2.0}, {3});
  fg::Tensor w = fg::Tensor::from({1.0, 2.0, 3.0}, {3}).requires_grad_();
  const fg::Tensor h = fg::taped(fg::exp(w) * 2.0);
  EXPECT_TRUE(fg::gtest::gradcheck([&](const fg::Tensor& v) { return fg::sum(v * w + v * h); }, x));
  EXPECT_FALSE(w.grad().defined());
  fg::Tensor(fg::sum(h)).backward();  // h's graph is whole: d/dw sum(2 exp(w)) = 2 exp(w)
  for (int i = 0; i < 3; ++i) EXPECT_DOUBLE_EQ(w.grad().data()[i], 2.0 * std::exp(w.data()[i]));
}

// The same input given twice is two inputs, each with its own partial derivatives, in both layers:
// d/da sum(a * a * b) = 2ab and d/db = a^2 at a = b = x.
TEST(Gradcheck, AnInputGivenTwiceIsTwoInputs) {
  const auto f = [](const auto& a, const auto& b) { return fg::sum(a * a * b); };
  const fg::Var<double, fg::Shape<2>> x{0.5, 1.5};
  EXPECT_TRUE(fg::gtest::gradcheck(f, x, x));
  const fg::Tensor t = fg::Tensor::from({0.5, 1.5}, {2});
  EXPECT_TRUE(fg::gtest::gradcheck(f, t, t));
}

// A NaN fails, even against a NaN reference, as in torch.autograd.gradcheck: sqrt of a negative value.
TEST(Gradcheck, ANanGradientFails) {
  const fg::Var<double, fg::Shape<2>> x{-1.0, 4.0};
  const fg::GradcheckReport report =
      fg::gradcheck([](const auto& v) { return fg::sum(fg::sqrt(v)); }, x, fg::GradcheckOptions{.complex_step = false});
  EXPECT_FALSE(report);
  EXPECT_EQ(report.worst_index, (std::vector<std::size_t>{0}));
  EXPECT_TRUE(std::isnan(report.worst_analytic));
}

// A central-difference step of 0, or one that rounds away, is refused: it would divide 0 by 0.
TEST(Gradcheck, AnEpsThatMovesNothingIsRefused) {
  const fg::Var<double, fg::Shape<2>> x{0.5, 1.5};
  const auto f = [](const auto& v) { return fg::sum(fg::sin(v)); };
  fg::test::expect_error<fg::value_error>([&] { (void)fg::gradcheck(f, x, fg::GradcheckOptions{.eps = 0}); },
                                          {"eps must be a number > 0", "not 0"});
  fg::test::expect_error<fg::value_error>([&] { (void)fg::gradcheck(f, x, fg::GradcheckOptions{.eps = 1e-300}); },
                                          {"eps = 1e-300", "larger eps"});
}

// A NaN tolerance would pass every comparison (even a wrong gradient's), a negative or infinite one decide nothing:
// refused, in both layers, as PyTorch refuses a NaN rtol.
TEST(Gradcheck, AToleranceThatIsNotANumberAtLeastZeroIsRefused) {
  const fg::Var<double, fg::Shape<2>> x{0.5, 1.5};
  const fg::Tensor t = fg::Tensor::from({0.5, 1.5}, {2}).requires_grad_();
  const auto f = [](const auto& v) { return fg::sum(fg::sin(v)); };
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  fg::test::expect_error<fg::value_error>([&] { (void)fg::gradcheck(f, x, fg::GradcheckOptions{.atol = nan}); },
                                          {"atol must be a number >= 0", "not nan"});
  fg::test::expect_error<fg::value_error>([&] { (void)fg::gradcheck(f, t, fg::GradcheckOptions{.rtol = -1e-6}); },
                                          {"rtol must be a number >= 0", "not -1e-06"});
  fg::test::expect_error<fg::value_error>([&] { (void)fg::gradcheck(f, x, fg::GradcheckOptions{.rtol = inf}); },
                                          {"rtol must be a number >= 0", "not inf"});
  EXPECT_TRUE(fg::gradcheck(f, x, fg::GradcheckOptions{.atol = 0, .rtol = 1e-6}).passed);
}

// sqrt'(0) is infinite; the complex step gives a large finite number (1 / sqrt(2h)). An infinite
// gradient matches only the same infinity (and a NaN nothing), so this fails, at x = 0.
TEST(Gradcheck, AnInfiniteGradientFailsAgainstAFiniteReference) {
  const fg::Var<double, fg::Shape<3>> x{1.0, 0.0, 4.0};
  const fg::GradcheckReport report = fg::gradcheck([](const auto& v) { return fg::sum(fg::sqrt(v)); }, x);
  EXPECT_FALSE(report);
  EXPECT_TRUE(std::isinf(report.max_abs_error));
  EXPECT_TRUE(std::isinf(report.max_rel_error)) << "an infinite error is no smaller relative to its reference";
  EXPECT_EQ(report.worst_index, (std::vector<std::size_t>{1}));
  EXPECT_TRUE(std::isinf(report.worst_analytic));
  std::ostringstream text;
  text << report;
  EXPECT_NE(text.str().find("inf absolute, inf relative"), std::string::npos) << text.str();
}

// The tensors are recorded for the analytic gradient even inside a caller's NoGradGuard.
TEST(Gradcheck, RecordsInsideACallersNoGradGuard) {
  const fg::Tensor t = fg::Tensor::from({0.5, 1.5}, {2});
  const fg::NoGradGuard no_grad;
  const fg::GradcheckReport report = fg::gradcheck([](const auto& a) { return fg::sum(fg::exp(a) * a); }, t);
  EXPECT_TRUE(report) << report;
  EXPECT_FALSE(fg::is_grad_enabled());
}

TEST(Gradcheck, AFunctionThatIsNotScalarThrows) {
  const fg::Tensor t = fg::Tensor::from({0.5, 1.5}, {2});
  fg::test::expect_error<fg::value_error>(
      [&] { (void)fg::gradcheck([](const fg::Tensor& a) { return fg::Tensor(fg::sin(a)); }, t); },
      {"fusegrad::gradcheck", "one value", "(2)", "fg::sum"});
}

TEST(Gradcheck, TheGoogleTestHelperCarriesTheReport) {
  const fg::Var<double, fg::Shape<3>> x{0.0, 1.0, 2.0};
  const ::testing::AssertionResult result =
      fg::gtest::gradcheck([](const auto& v) { return fg::sum(wrong_sin(v)); }, x);
  EXPECT_FALSE(result);
  EXPECT_NE(std::string(result.message()).find("worst element: input 0 at (2)"), std::string::npos) << result.message();
}

}  // namespace
