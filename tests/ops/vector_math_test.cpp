// The element-wise functions the op specs evaluate (detail/vector_math.hpp): their largest error in ULPs
// against long double over each function's whole domain (for exp, subnormal results included), IEEE special
// values as std:: gives them, and values that do not depend on an element's position. The same bounds hold
// with and without FUSEGRAD_SIMD_MATH; the test prints the measured figures and which implementation ran.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <limits>
#include <random>
#include <vector>

#include <fusegrad/fusegrad.hpp>

namespace fg = fusegrad;

namespace {

using function = Eigen::ArrayXd (*)(const Eigen::ArrayXd&);
using reference = long double (*)(long double);

struct math_case {
  const char* name;
  function vectorised;
  reference exact;
  double lo, hi;     // the domain tested (magnitudes log-uniform when it spans decades)
  double ulp_bound;  // the most error allowed, in ULPs
};

// Every function's domain is every double it maps to a finite result, sampled log-uniformly in
// magnitude from the smallest normal number, plus a dense uniform sample of the range where
// most values lie. tanh's bound is glibc's own (2.1 ULPs measured); xsimd's tan reaches 2.4,
// Eigen's exp 1.7.
const math_case cases[] = {
    {"exp", [](const Eigen::ArrayXd& x) -> Eigen::ArrayXd { return fg::math::exp(x); },
     [](long double x) { return std::exp(x); }, -746, 709, 2.0},
    {"sin", [](const Eigen::ArrayXd& x) -> Eigen::ArrayXd { return fg::math::sin(x); },
     [](long double x) { return std::sin(x); }, -1e300, 1e300, 2.0},
    {"cos", [](const Eigen::ArrayXd& x) -> Eigen::ArrayXd { return fg::math::cos(x); },
     [](long double x) { return std::cos(x); }, -1e300, 1e300, 2.0},
    {"tan", [](const Eigen::ArrayXd& x) -> Eigen::ArrayXd { return fg::math::tan(x); },
     [](long double x) { return std::tan(x); }, -1e300, 1e300, 3.0},
    {"tanh", [](const Eigen::ArrayXd& x) -> Eigen::ArrayXd { return fg::math::tanh(x); },
     [](long double x) { return std::tanh(x); }, -1e300, 1e300, 2.5},
    {"log1p", [](const Eigen::ArrayXd& x) -> Eigen::ArrayXd { return fg::math::log1p(x); },
     [](long double x) { return std::log1p(x); }, -1, 1e308, 1.0},
    {"expm1", [](const Eigen::ArrayXd& x) -> Eigen::ArrayXd { return fg::math::expm1(x); },
     [](long double x) { return std::expm1(x); }, -745, 709, 2.5},
};

// n inputs over [lo, hi]: a third uniform in [-8, 8] clipped to the domain, a third uniform over the whole
// domain when it is narrow enough (exp's and expm1's), and the rest with log-uniform magnitudes (from the
// smallest normal double) and the domain's signs.
Eigen::ArrayXd inputs(double lo, double hi, Eigen::Index n) {
  std::mt19937_64 rng(2026);
  Eigen::ArrayXd x(n);
  const double top = std::log(std::max(std::abs(lo), std::abs(hi)));
  for (Eigen::Index i = 0; i < n; ++i) {
    if (i % 3 == 0) {
      x[i] = std::uniform_real_distribution<double>(std::max(lo, -8.0), std::min(hi, 8.0))(rng);
    } else if (i % 3 == 1 && hi - lo < 1e4) {
      x[i] = std::uniform_real_distribution<double>(lo, hi)(rng);
    } else {
      const double magnitude =
          std::exp(std::uniform_real_distribution<double>(std::log(std::numeric_limits<double>::min()), top)(rng));
      const bool negative = lo < 0 && (rng() & 1);
      x[i] = negative ? -std::min(magnitude, -lo) : std::min(magnitude, hi);
    }
    if (x[i] <= -1 && lo == -1) x[i] = std::nextafter(-1.0, 0.0);  // log1p's domain is open at -1
  }
  return x;
}

// |got - exact| in units of the last place of exact rounded to double.
double ulp_error(double got, long double exact) {
  const double rounded = static_cast<double>(exact);
  if (std::isinf(rounded)) return got == rounded ? 0 : std::numeric_limits<double>::infinity();
  if (!std::isfinite(got)) return std::numeric_limits<double>::infinity();
  const double ulp = std::nextafter(std::abs(rounded), std::numeric_limits<double>::infinity()) - std::abs(rounded);
  return static_cast<double>(std::abs(static_cast<long double>(got) - exact) / ulp);
}

TEST(VectorMath, LargestErrorInUlpsOverTheWholeDomain) {
  std::cout << "element-wise math: " << (fg::math::vectorised_v<double> ? "xsimd" : "Eigen (std::)") << '\n';
  for (const auto& c : cases) {
    const Eigen::ArrayXd x = inputs(c.lo, c.hi, 1 << 15);
    const Eigen::ArrayXd y = c.vectorised(x);
    double worst = 0, worst_x = 0;
    for (Eigen::Index i = 0; i < x.size(); ++i) {
      const double e = ulp_error(y[i], c.exact(x[i]));
      if (e > worst) worst = e, worst_x = x[i];
    }
    std::cout << "  " << c.name << ": " << worst << " ULPs at x = " << worst_x << '\n';
    EXPECT_LE(worst, c.ulp_bound) << c.name << " at x = " << worst_x;
  }
}

TEST(VectorMath, SpecialValuesAreTheCLibrarys) {
  constexpr double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  // Infinities, NaN and huge inputs, and each side of where tanh reaches +-1 and expm1 -1.
  const std::vector<double> specials{0.0,    -0.0,   inf,  -inf,  nan,  -1.0,  -2.0,  1000.0, -1000.0, 710.0, -720.0,
                                     -745.0, -750.0, 19.0, -19.5, 20.5, -37.0, -38.0, 1e19,   -1e19,   1e308, -1e308};
  Eigen::ArrayXd x(Eigen::Index(specials.size()));
  std::copy(specials.begin(), specials.end(), x.begin());
  for (const auto& c : cases) {
    const Eigen::ArrayXd y = c.vectorised(x);
    for (Eigen::Index i = 0; i < x.size(); ++i) {
      const double want = static_cast<double>(c.exact(x[i]));
      if (std::isnan(want)) {
        EXPECT_TRUE(std::isnan(y[i])) << c.name << '(' << x[i] << ") = " << y[i] << ", not NaN";
      } else if (want == 0 || std::isinf(want) || std::abs(want) == 1) {
        // zeros keep their sign; infinities and tanh's, expm1's limits are exact
        EXPECT_EQ(y[i], want) << c.name << '(' << x[i] << ')';
        EXPECT_EQ(std::signbit(y[i]), std::signbit(want)) << c.name << '(' << x[i] << ')';
      } else {
        EXPECT_LE(ulp_error(y[i], c.exact(x[i])), c.ulp_bound) << c.name << '(' << x[i] << ')';
      }
    }
  }
}

// Arrays of every length up to three registers and a tail: an element's value is the same at every
// position, whether a full register, a partial one or a single value computes it.
TEST(VectorMath, AValueDoesNotDependOnItsPosition) {
  const double value = 0.7390851332151607;
  for (const auto& c : cases) {
    const double alone = c.vectorised(Eigen::ArrayXd::Constant(1, value))[0];
    for (Eigen::Index n = 1; n <= 27; ++n) {
      Eigen::ArrayXd x = Eigen::ArrayXd::LinSpaced(n, -0.5, 0.5);
      for (Eigen::Index at = 0; at < n; ++at) {
        Eigen::ArrayXd placed = x;
        placed[at] = value;
        EXPECT_EQ(c.vectorised(placed)[at], alone) << c.name << ": position " << at << " of " << n;
      }
    }
  }
}

// The ops use these functions in both layers: sin's gradient is cos, computed the same way.
TEST(VectorMath, TheOpsUseThem) {
  const Eigen::ArrayXd data = Eigen::ArrayXd::LinSpaced(19, -1, 3);
  fg::Var<double, fg::Shape<fg::dyn>> x(data);
  const auto [value, dx] = fg::value_and_grad(fg::sum(fg::sin(x)), x);
  const Eigen::ArrayXd sines = fg::math::sin(data), cosines = fg::math::cos(data);
  EXPECT_NEAR(value, sines.sum(), 1e-14);
  for (Eigen::Index i = 0; i < data.size(); ++i) EXPECT_EQ(dx[i], cosines[i]) << "x = " << data[i];
}

}  // namespace
