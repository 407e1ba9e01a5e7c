// ops/selection_ops_test.cpp -- comparisons, where and clamp: against PyTorch's figures in every layer, the edges
// (ties at the bounds, inf on the side not chosen, lo above hi), and gradcheck.
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include <fusegrad/fusegrad.hpp>

#include "data/shape_ops/torch_reference.hpp"
#include "support/expect_array.hpp"
#include "support/torch_figures.hpp"
#include "support/typed_cases.hpp"

namespace {

namespace fg = fusegrad;
namespace torch = fg::test::torch_shape_reference;
using fg::Extents;
using fg::test::expect_array_near;
using fg::test::expect_torch_figures;

// A macro whose function comes last: a lambda's commas are not in parentheses.
#define EXPECT_TORCH_FIGURES(name, ...) \
  expect_torch_figures(__VA_ARGS__, torch::name##_x, torch::name##_upstream, torch::name##_value, torch::name##_grad)

// --- PyTorch's figures (tests/data/shape_ops/make_reference.py) --------------------------------------------------

// where(x > 1, x * x, -x) with x = 1 in two places: the condition is false there, so -x is chosen.
TEST(SelectionOpsAgainstPyTorch, WhereSendsEachGradientToTheChosenSide) {
  EXPECT_TORCH_FIGURES(where_with_ties, [](const auto& x) { return fg::where(x > 1.0, x * x, -x); });
}
// Both bounds pass the gradient (PyTorch's clamp: lo <= x <= hi); with lo above hi every value is hi.
TEST(SelectionOpsAgainstPyTorch, ClampPassesTheGradientAtItsBounds) {
  EXPECT_TORCH_FIGURES(clamp_at_bounds, [](const auto& x) { return fg::clamp(x, -1.0, 2.0); });
  EXPECT_TORCH_FIGURES(clamp_low_above_high, [](const auto& x) { return fg::clamp(x, 1.0, 0.0); });
}

// --- closed forms and edges ---------------------------------------------------------------------------------------

TEST(SelectionOpsByHand, ComparisonsAreMasksOfOneAndZero) {
  const fg::Tensor a = fg::Tensor::from({1.0, 2.0, 3.0}, {3});
  const fg::Tensor b = fg::Tensor::from({2.0, 2.0, 2.0}, {3});
  expect_array_near(fg::Tensor(a < b).eigen(), {1, 0, 0});
  expect_array_near(fg::Tensor(a <= b).eigen(), {1, 1, 0});
  expect_array_near(fg::Tensor(a > b).eigen(), {0, 0, 1});
  expect_array_near(fg::Tensor(a >= b).eigen(), {0, 1, 1});
  expect_array_near(fg::Tensor(fg::eq(a, b)).eigen(), {0, 1, 0});
  expect_array_near(fg::Tensor(fg::ne(a, b)).eigen(), {1, 0, 1});
  expect_array_near(fg::Tensor(2.0 < a).eigen(), {0, 0, 1});  // a number on either side
  // NaN compares false, except !=, as in IEEE 754 and PyTorch.
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const fg::Tensor n = fg::Tensor::from({nan}, {1});
  EXPECT_EQ(fg::Tensor(n < 1.0).item(), 0.0);
  EXPECT_EQ(fg::Tensor(fg::eq(n, n)).item(), 0.0);
  EXPECT_EQ(fg::Tensor(fg::ne(n, n)).item(), 1.0);
  // With broadcasting: a column against a row.
  const fg::Tensor col = fg::Tensor::from({1.0, 2.0}, {2, 1}), row = fg::Tensor::from({1.0, 2.0, 3.0}, {1, 3});
  const fg::Tensor grid = col < row;
  EXPECT_EQ(grid.shape(), (Extents{2, 3}));
  expect_array_near(grid.eigen(), {0, 1, 1, 0, 0, 1});
}

// Every comparison over whole registers and their tails: each pair of the values below (NaN, infinities, signed zeros,
// ties) at a position of its own, in the static layer and on tensors, against IEEE 754's comparison of the two numbers.
TEST(SelectionOpsByHand, ComparisonsOnRegistersFollowIeee) {
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  const std::vector<double> edge{nan, -inf, -1.0, -0.0, 0.0, 1.0, inf};
  std::vector<double> av, bv;
  for (const double a : edge)
    for (const double b : edge) {
      av.push_back(a);
      bv.push_back(b);
    }
  const std::size_t n = av.size();  // 49: three blocks of 16 and a tail with AVX-512, twelve and a tail with SSE2
  fg::Var<double, fg::Shape<fg::dyn>> a(Extents{n}), b(Extents{n});
  std::copy(av.begin(), av.end(), a.value().begin());
  std::copy(bv.begin(), bv.end(), b.value().begin());
  const fg::Tensor ta = fg::Tensor::from(av, {n}), tb = fg::Tensor::from(bv, {n});
  const auto expect = [&](const char* name, const auto& holds, const auto& in_static, const fg::Tensor& on_tensors) {
    SCOPED_TRACE(name);
    for (std::size_t k = 0; k < n; ++k) {
      SCOPED_TRACE(std::to_string(av[k]) + " and " + std::to_string(bv[k]));
      const double want = holds(av[k], bv[k]) ? 1.0 : 0.0;
      EXPECT_EQ(in_static[Eigen::Index(k)], want);
      EXPECT_EQ(on_tensors.data()[k], want);
    }
  };
  expect("<", std::less<>(), fg::eval(a < b), ta < tb);
  expect("<=", std::less_equal<>(), fg::eval(a <= b), ta <= tb);
  expect(">", std::greater<>(), fg::eval(a > b), ta > tb);
  expect(">=", std::greater_equal<>(), fg::eval(a >= b), ta >= tb);
  expect("eq", std::equal_to<>(), fg::eval(fg::eq(a, b)), fg::eq(ta, tb));
  expect("ne", std::not_equal_to<>(), fg::eval(fg::ne(a, b)), fg::ne(ta, tb));
}

// A comparison takes no gradient, as PyTorch's: its result does not require grad, and the gradient of
// x * (x > 0) is the mask alone.
TEST(SelectionOpsByHand, NoGradientFlowsThroughAComparison) {
  fg::Tensor x = fg::Tensor::from({-1.0, 2.0, 0.0}, {3}).requires_grad_();
  const fg::Tensor mask = x > 0.0;
  EXPECT_FALSE(mask.requires_grad());
  EXPECT_FALSE(fg::Tensor(fg::taped(x > 0.0)).requires_grad());
  fg::Tensor(fg::sum(x * (x > 0.0))).backward();
  expect_array_near(x.grad().eigen(), {0, 1, 0});
  static_assert(!decltype(std::declval<const fg::Var<double, fg::Shape<3>>&>() < 0.0)::takes_grad);
  // A tensor read only by a comparison gets no gradient, not a zero one.
  fg::Tensor y = fg::Tensor::from({1.0, -1.0, 2.0}, {3}).requires_grad_();
  EXPECT_FALSE(fg::Tensor((y > 0.0) * 2.0).requires_grad());
  EXPECT_FALSE(fg::Tensor(fg::where(y > 0.0, 1.0, 2.0)).requires_grad());
  fg::Tensor(fg::sum(x * (y > 0.0))).backward();
  EXPECT_FALSE(y.grad().defined());
  fg::Var<double, fg::Shape<3>> v{-1.0, 2.0, 0.0};
  expect_array_near(fg::grad(fg::sum(v * (v >= 0.0)), v), {0, 1, 1});
}

// The side not chosen may be inf or NaN: it never reaches the value. Its gradient there is 0, which still
// passes through that side's VJP: 0 * NaN at sqrt(-1), as in PyTorch; a second where keeps the operand in the
// domain.
TEST(SelectionOpsByHand, WhereIgnoresTheSideItDoesNotChoose) {
  fg::Tensor x = fg::Tensor::from({-1.0, 4.0}, {2}).requires_grad_();
  const fg::Tensor unguarded = fg::where(x > 0.0, fg::sqrt(x), 0.0);  // sqrt(-1) is NaN, never chosen
  expect_array_near(unguarded.eigen(), {0, 2});
  fg::Tensor(fg::sum(unguarded)).backward();
  EXPECT_TRUE(std::isnan(x.grad().data()[0]));
  EXPECT_EQ(x.grad().data()[1], 0.25);
  x.zero_grad();
  const fg::Tensor guarded = fg::where(x > 0.0, fg::sqrt(fg::where(x > 0.0, x, 1.0)), 0.0);
  expect_array_near(guarded.eigen(), {0, 2});
  fg::Tensor(fg::sum(guarded)).backward();
  expect_array_near(x.grad().eigen(), {0, 0.25});
  // Broadcasting across all three: a scalar condition, a row and a column.
  const fg::Tensor row = fg::Tensor::from({1.0, 2.0, 3.0}, {3}).requires_grad_();
  const fg::Tensor col = fg::Tensor::from({10.0, 20.0}, {2, 1}).requires_grad_();
  const fg::Tensor cond = fg::Tensor::from({1.0, 0.0, 1.0}, {3});
  const fg::Tensor picked = fg::where(cond, row, col);
  EXPECT_EQ(picked.shape(), (Extents{2, 3}));
  expect_array_near(picked.eigen(), {1, 10, 3, 1, 20, 3});
  fg::Tensor(fg::sum(picked)).backward();
  expect_array_near(row.grad().eigen(), {2, 0, 2});
  expect_array_near(col.grad().eigen(), {1, 1});
}

TEST(SelectionOpsByHand, ClampKeepsNaNAndTakesOneSidedBounds) {
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  const fg::Tensor x = fg::Tensor::from({nan, -inf, -2.0, 5.0, inf}, {5});
  const fg::Tensor y = fg::clamp(x, -1.0, 1.0);
  EXPECT_TRUE(std::isnan(y.data()[0]));
  const auto expect_values = [](const fg::Tensor& t, std::initializer_list<double> expected) {
    ASSERT_EQ(t.numel(), expected.size());
    std::size_t i = 0;
    for (double e : expected) EXPECT_EQ(t.data()[i++], e) << "element " << i - 1;
  };
  expect_values(fg::slice(y, 0, 1, 5), {-1, -1, 1, 1});
  expect_values(fg::clamp_min(fg::slice(x, 0, 1, 5), 0.0), {0, 0, 5, inf});
  expect_values(fg::clamp_max(fg::slice(x, 0, 1, 5), 0.0), {-inf, -2, 0, 0});
}

// PyTorch 1.13: torch.clamp(x, min=nan) and torch.clamp(x, max=nan) are NaN everywhere (max and min pass NaN on); the
// gradient is 0 everywhere (x >= nan and x <= nan are false), in both layers.
TEST(SelectionOpsByHand, ANaNBoundMakesEveryValueNaN) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  fg::Tensor x = fg::Tensor::from({-1.0, 0.5, 2.0}, {3}).requires_grad_();
  fg::Var<double, fg::Shape<3>> v{-1.0, 0.5, 2.0};
  for (const auto& [lo, hi] : {std::pair{nan, 1.0}, std::pair{0.0, nan}, std::pair{nan, nan}}) {
    SCOPED_TRACE("clamp(x, " + std::to_string(lo) + ", " + std::to_string(hi) + ")");
    x.zero_grad();
    const fg::Tensor y = fg::clamp(x, lo, hi);
    fg::Tensor(fg::sum(y * 1.0)).backward();
    const auto dv = fg::grad(fg::sum(fg::clamp(v, lo, hi) * 1.0), v);
    for (std::size_t i = 0; i < 3; ++i) {
      EXPECT_TRUE(std::isnan(y.data()[i])) << "element " << i;
      EXPECT_EQ(x.grad().data()[i], 0.0) << "element " << i;
      EXPECT_EQ(dv[Eigen::Index(i)], 0.0) << "element " << i;
    }
  }
}

// --- gradcheck in every layer, float and double, static and dyn shapes ----------------------------------------------

template <class C>
class SelectionOps : public ::testing::Test {
 protected:
  // Values 0.25 apart, away from the thresholds below (which sit between them): central differences
  // never straddle a step.
  typename C::template var<2, 3> x = C::template var_of<2, 3>({-1.25, 0.5, 1.75, -0.25, 1.0, 0.25});
};
TYPED_TEST_SUITE(SelectionOps, fg::test::OpCases, fg::test::CaseNames);

TYPED_TEST(SelectionOps, Where) {
  TypeParam::expect_gradcheck([](const auto& v) { return fg::where(v > 0.1, fg::sin(v), v * v); }, this->x);
}
TYPED_TEST(SelectionOps, Clamp) {
  TypeParam::expect_gradcheck([](const auto& v) { return fg::clamp(fg::exp(v), 0.6, 2.0) * v; }, this->x);
}
TYPED_TEST(SelectionOps, Lt) {
  TypeParam::expect_gradcheck([](const auto& v) { return fg::sin(v) * (v < 0.6); }, this->x);
}
TYPED_TEST(SelectionOps, Le) {
  TypeParam::expect_gradcheck([](const auto& v) { return fg::sin(v) * (v <= 0.6); }, this->x);
}
TYPED_TEST(SelectionOps, Gt) {
  TypeParam::expect_gradcheck([](const auto& v) { return v * v * (v > -0.1); }, this->x);
}
TYPED_TEST(SelectionOps, Ge) {
  TypeParam::expect_gradcheck([](const auto& v) { return fg::exp(v) * (v >= -0.1); }, this->x);
}
TYPED_TEST(SelectionOps, Eq) {
  TypeParam::expect_gradcheck([](const auto& v) { return fg::exp(v) * fg::eq(v, v) + fg::eq(v, 0.5); }, this->x);
}
TYPED_TEST(SelectionOps, Ne) {
  TypeParam::expect_gradcheck([](const auto& v) { return fg::exp(v) * fg::ne(v, 0.3); }, this->x);
}

}  // namespace

#undef EXPECT_TORCH_FIGURES  // a unity build continues with another file
