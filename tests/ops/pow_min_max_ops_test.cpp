// ops/pow_min_max_ops_test.cpp -- pow, maximum, minimum: values and gradients in every operand layout.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include <fusegrad/fusegrad.hpp>

#include "support/binary_op_check.hpp"

namespace {

namespace fg = fusegrad;
using fg::test::Domain;

void expect_equal_elements(const fg::Tensor& t, std::initializer_list<double> want) {
  ASSERT_EQ(t.numel(), want.size());
  std::size_t k = 0;
  for (const double w : want) EXPECT_EQ(t.data()[k++], w) << "element " << k - 1;
}

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

// NaN in either operand makes maximum and minimum NaN, and sends the whole upstream gradient to both sides, as
// PyTorch's masks (0 only where the other side is strictly greater, or smaller) do. Nine elements: full blocks and a
// tail.
TEST(PowMinMaxOpsByHand, NaNInEitherOperandPropagates) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const std::vector<double> av{1.0, nan, 2.0, nan, 5.0, 1.0, nan, 4.0, 0.0},
      bv{nan, 1.0, 3.0, nan, 4.0, 1.0, 2.0, nan, 1.0};
  fg::Var<double, fg::Shape<9>> a, b;
  std::copy(av.begin(), av.end(), a.value().begin());
  std::copy(bv.begin(), bv.end(), b.value().begin());
  const fg::Tensor ta = fg::Tensor::from(av, {9}).requires_grad_(), tb = fg::Tensor::from(bv, {9}).requires_grad_();
  for (const bool is_max : {true, false}) {
    SCOPED_TRACE(is_max ? "maximum" : "minimum");
    const auto [value, da, db] = is_max ? fg::value_and_grad(fg::sum(fg::maximum(a, b)), a, b)
                                        : fg::value_and_grad(fg::sum(fg::minimum(a, b)), a, b);
    EXPECT_TRUE(std::isnan(value));
    const Eigen::Array<double, 9, 1> y = is_max ? fg::eval(fg::maximum(a, b)) : fg::eval(fg::minimum(a, b));
    fg::Tensor fused = is_max ? fg::Tensor(fg::maximum(ta, tb)) : fg::Tensor(fg::minimum(ta, tb));
    fg::Tensor taped = is_max ? fg::taped(fg::maximum(ta, tb)) : fg::taped(fg::minimum(ta, tb));
    for (int k = 0; k < 9; ++k) {
      SCOPED_TRACE("element " + std::to_string(k));
      const bool any_nan = std::isnan(av[k]) || std::isnan(bv[k]);
      const double want = any_nan ? nan : is_max ? std::max(av[k], bv[k]) : std::min(av[k], bv[k]);
      for (const double got : {y[k], fused.data()[k], taped.data()[k]}) {
        if (any_nan) {
          EXPECT_TRUE(std::isnan(got)) << got;
        } else {
          EXPECT_EQ(got, want);
        }
      }
      // The gradient: 1 to a side unless the other is strictly beyond it, 1/2 each at a tie.
      const bool a_loses = is_max ? av[k] < bv[k] : av[k] > bv[k], b_loses = is_max ? bv[k] < av[k] : bv[k] > av[k];
      const double tie = av[k] == bv[k] ? 0.5 : 1.0;
      EXPECT_EQ(da[k], a_loses ? 0.0 : tie);
      EXPECT_EQ(db[k], b_loses ? 0.0 : tie);
    }
  }
  fg::Tensor(fg::sum(fg::maximum(ta, tb))).backward();
  fg::taped(fg::sum(fg::minimum(ta, tb))).backward();
  // maximum's and minimum's gradients summed: 1 + 0 or 0 + 1 where the two differ, 2 at NaN, 1/2 + 1/2 at the tie.
  expect_equal_elements(ta.grad(), {2, 2, 1, 2, 1, 1, 2, 2, 1});
  expect_equal_elements(tb.grad(), {2, 2, 1, 2, 1, 1, 2, 2, 1});
}

// A negative base (-0 too) to an odd integer power is negative, infinities and zeros included, in every layer and at
// every position of a block, as std::pow (and PyTorch) give it.
TEST(PowMinMaxOpsByHand, ANegativeBaseToAnOddPowerKeepsItsSign) {
  const double inf = std::numeric_limits<double>::infinity();
  const std::vector<double> av{-inf, -0.0, -0.0, -1e-300, -2.0, -inf, -3.0, 2.0, -2.0};
  const std::vector<double> bv{3.0, -1.0, 3.0, 3.0, 3.0, 2.0, 0.5, 3.0, -3.0};
  fg::Var<double, fg::Shape<9>> a, b;
  std::copy(av.begin(), av.end(), a.value().begin());
  std::copy(bv.begin(), bv.end(), b.value().begin());
  const Eigen::Array<double, 9, 1> y = fg::eval(fg::pow(a, b));
  const fg::Tensor ta = fg::Tensor::from(av, {9}), tb = fg::Tensor::from(bv, {9});
  const fg::Tensor fused = fg::pow(ta, tb), taped = fg::taped(fg::pow(ta, tb));
  for (int k = 0; k < 9; ++k) {
    SCOPED_TRACE("element " + std::to_string(k));
    const double want = std::pow(av[k], bv[k]);
    for (const double got : {y[k], fused.data()[k], taped.data()[k]}) {
      if (std::isnan(want)) {
        EXPECT_TRUE(std::isnan(got)) << got;
      } else {
        EXPECT_EQ(got, want);
        EXPECT_EQ(std::signbit(got), std::signbit(want)) << got;
      }
    }
  }
  // d/db a^b = a^b log a: at a = -0, b = -1 it is (-inf)(-inf) = inf; d/da = b a^(b-1) = -1 * (-0)^-2 = -inf.
  fg::Var<double, fg::Shape<>> zero(-0.0), minus_one(-1.0);
  const auto [value, da, db] = fg::value_and_grad(fg::pow(zero, minus_one), zero, minus_one);
  EXPECT_EQ(value, -inf);
  EXPECT_EQ(da, -inf);
  EXPECT_EQ(db, inf);
  // d/da a^b = b a^(b-1): at a = -inf, b = 2 it is 2 (-inf) = -inf.
  fg::Var<double, fg::Shape<>> minus_inf(-inf), two(2.0);
  const auto [square, da_square, db_square] = fg::value_and_grad(fg::pow(minus_inf, two), minus_inf, two);
  EXPECT_EQ(square, inf);
  EXPECT_EQ(da_square, -inf);
  EXPECT_TRUE(std::isnan(db_square));  // inf * log(-inf), NaN as in PyTorch
}

// maximum's and minimum's gradients on whole registers and their tails (42 elements), with ties, signed zeros, NaN
// and an infinite upstream gradient, as PyTorch 1.13's masks give them: 0 to the side the other beats, whatever dy is;
// dy/2 to each side of a tie; dy elsewhere. In the static layer (dy = 1), one tape node and fg::taped, float and
// double.
template <class T>
void check_extrema_on_registers() {
  const T nan = std::numeric_limits<T>::quiet_NaN(), inf = std::numeric_limits<T>::infinity();
  const std::vector<std::pair<T, T>> seven{{1, 2}, {2, 2}, {3, 2}, {nan, 1}, {1, nan}, {-T(0), T(0)}, {inf, inf}};
  const std::size_t n = 42;
  std::vector<T> av(n), bv(n), upstream(n);
  for (std::size_t k = 0; k < n; ++k) {
    std::tie(av[k], bv[k]) = seven[k % 7];
    upstream[k] = k % 3 == 0 ? inf : T(1) + T(k) / 8;
  }
  // The gradient of max (or min) to `mine` against `other`.
  const auto share = [](bool is_max, T dy, T mine, T other) {
    if (is_max ? mine < other : other < mine) return T(0);
    return mine == other ? dy / 2 : dy;
  };
  fg::Var<T, fg::Shape<fg::dyn>> a(fg::Extents{n}), b(fg::Extents{n});
  std::copy(av.begin(), av.end(), a.value().begin());
  std::copy(bv.begin(), bv.end(), b.value().begin());
  using Tensor = fg::BasicTensor<T>;
  Tensor ta = Tensor::from(av, {n}).requires_grad_(), tb = Tensor::from(bv, {n}).requires_grad_();
  const Tensor dy = Tensor::from(upstream, {n});
  for (const bool is_max : {true, false}) {
    SCOPED_TRACE(is_max ? "maximum" : "minimum");
    const auto [value, da, db] = is_max ? fg::value_and_grad(fg::sum(fg::maximum(a, b)), a, b)
                                        : fg::value_and_grad(fg::sum(fg::minimum(a, b)), a, b);
    for (std::size_t k = 0; k < n; ++k) {
      SCOPED_TRACE("static layer, element " + std::to_string(k));
      EXPECT_EQ(da[Eigen::Index(k)], share(is_max, T(1), av[k], bv[k]));
      EXPECT_EQ(db[Eigen::Index(k)], share(is_max, T(1), bv[k], av[k]));
    }
    for (const bool taped : {false, true}) {
      ta.zero_grad();
      tb.zero_grad();
      const Tensor y = is_max ? (taped ? fg::taped(fg::maximum(ta, tb)) : Tensor(fg::maximum(ta, tb)))
                              : (taped ? fg::taped(fg::minimum(ta, tb)) : Tensor(fg::minimum(ta, tb)));
      y.backward(dy);
      for (std::size_t k = 0; k < n; ++k) {
        SCOPED_TRACE(std::string(taped ? "fg::taped" : "one tape node") + ", element " + std::to_string(k));
        EXPECT_EQ(ta.grad().data()[k], share(is_max, upstream[k], av[k], bv[k]));
        EXPECT_EQ(tb.grad().data()[k], share(is_max, upstream[k], bv[k], av[k]));
      }
    }
  }
}
TEST(PowMinMaxOpsByHand, ExtremaOnRegisters) {
  check_extrema_on_registers<double>();
  check_extrema_on_registers<float>();
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

// An infinite upstream gradient meets those zeros as PyTorch 1.13's pow backward has it: the zero of d/da (b = 0) is
// taken after multiplying by dy, the zero of y ln a (a = 0, b >= 0) before, so inf * 0 is NaN there. At (a, b) = (0,
// 2): da = inf * 2 * 0 = NaN, db = inf * 0 = NaN; at (2, 0): da = 0, db = inf * 1 * ln 2 = inf. The two pairs alternate
// over 34 elements (whole registers and a tail), in one tape node and fg::taped.
TEST(PowMinMaxOpsByHand, InfiniteUpstreamAtTheZerosFollowsTorch) {
  const double inf = std::numeric_limits<double>::infinity();
  const std::size_t n = 34;
  std::vector<double> av(n), bv(n);
  for (std::size_t k = 0; k < n; ++k) {
    av[k] = k % 2 == 0 ? 0.0 : 2.0;
    bv[k] = k % 2 == 0 ? 2.0 : 0.0;
  }
  for (const bool taped : {false, true}) {
    SCOPED_TRACE(taped ? "fg::taped" : "one tape node");
    fg::Tensor a = fg::Tensor::from(av, {n}).requires_grad_();
    fg::Tensor b = fg::Tensor::from(bv, {n}).requires_grad_();
    const fg::Tensor y = taped ? fg::taped(fg::pow(a, b)) : fg::Tensor(fg::pow(a, b));
    y.backward(fg::Tensor::from(std::vector<double>(n, inf), {n}));
    for (std::size_t k = 0; k < n; ++k) {
      SCOPED_TRACE("element " + std::to_string(k));
      if (k % 2 == 0) {
        EXPECT_TRUE(std::isnan(a.grad().data()[k]));
        EXPECT_TRUE(std::isnan(b.grad().data()[k]));
      } else {
        EXPECT_EQ(a.grad().data()[k], 0.0);
        EXPECT_EQ(b.grad().data()[k], inf);
      }
    }
  }
}

}  // namespace
