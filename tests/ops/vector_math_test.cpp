// The element-wise functions the op specs evaluate (detail/vector_math.hpp): their largest error in ULPs
// against long double over each function's whole domain (for exp, subnormal results included), IEEE special
// values as std:: gives them, and values that do not depend on an element's position. The same bounds hold
// with and without FUSEGRAD_SIMD_MATH; the test prints the measured figures and which implementation ran.
// tests/CMakeLists.txt also builds this file without xsimd and, on x86-64, for AVX2 and for AVX-512
// (gtest.vector_math_*).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <iterator>
#include <limits>
#include <numbers>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fusegrad/fusegrad.hpp>

namespace fg = fusegrad;

namespace {

#ifdef FUSEGRAD_TEST_NEEDS_AVX2
// Built for AVX2 (tests/CMakeLists.txt): on a CPU without it, exit before any test with ctest's skip code.
[[maybe_unused]] const bool cpu_has_avx2 = [] {
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return true;
  std::cout << "skipped: this CPU has no AVX2 and FMA\n";
  std::_Exit(77);
}();
#endif
#ifdef FUSEGRAD_TEST_NEEDS_AVX512
// Built for AVX-512 (tests/CMakeLists.txt): likewise.
[[maybe_unused]] const bool cpu_has_avx512 = [] {
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512cd") &&
      __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl"))
    return true;
  std::cout << "skipped: this CPU has not all of x86-64-v4's AVX-512 (F, BW, CD, DQ, VL)\n";
  std::_Exit(77);
}();
#endif

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
     [](long double x) { return std::exp(x); }, -746, 709.78, 2.0},
    {"log", [](const Eigen::ArrayXd& x) -> Eigen::ArrayXd { return fg::math::log(x); },
     [](long double x) { return std::log(x); }, 0, 1e308, 2.0},
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
     [](long double x) { return std::expm1(x); }, -745, 709.78, 2.5},
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

struct largest_error {
  double ulps, at;
};
largest_error largest_ulp_error(const math_case& c, const Eigen::ArrayXd& x) {
  const Eigen::ArrayXd y = c.vectorised(x);
  largest_error worst{0, 0};
  for (Eigen::Index i = 0; i < x.size(); ++i)
    if (const double e = ulp_error(y[i], c.exact(x[i])); e > worst.ulps) worst = {e, x[i]};
  return worst;
}

TEST(VectorMath, LargestErrorInUlpsOverTheWholeDomain) {
  std::cout << "element-wise math: "
            << (fg::math::vectorised_v<double>
                    ? (fg::math::vectorised_sin_v<double> ? "xsimd" : "xsimd, sin from std::")
                    : "Eigen (std::)")
            << ", " << Eigen::internal::packet_traits<double>::size << " doubles per register\n";
  for (const auto& c : cases) {
    const auto [worst, worst_x] = largest_ulp_error(c, inputs(c.lo, c.hi, 1 << 15));
    std::cout << "  " << c.name << ": " << worst << " ULPs at x = " << worst_x << '\n';
    EXPECT_LE(worst, c.ulp_bound) << c.name << " at x = " << worst_x;
  }
}

// From 20 pi to 823550 in magnitude xsimd reduces the argument of sin, cos and tan in a medium-range form, whose errors
// exceed those of the rest of the domain; the log-uniform magnitudes above put few inputs there, so this samples it
// uniformly: sin and cos stay within 2.5 ULPs and tan within 3.5 (2^20 inputs measured 2.35, 2.27 and 3.27 with AVX2).
TEST(VectorMath, TrigOverTheMediumRangeOfItsArgumentReduction) {
  std::mt19937_64 rng(7);
  Eigen::ArrayXd x(1 << 15);
  for (double& v : x) {
    const double magnitude = std::uniform_real_distribution<double>(20 * std::numbers::pi, 823550.0)(rng);
    v = (rng() & 1) ? -magnitude : magnitude;
  }
  struct bound {
    std::string_view name;
    double ulps;
  };
  for (const bound b : {bound{"sin", 2.5}, bound{"cos", 2.5}, bound{"tan", 3.5}}) {
    const auto c = std::find_if(std::begin(cases), std::end(cases),
                                [&](const math_case& m) { return std::string_view(m.name) == b.name; });
    const auto [worst, worst_x] = largest_ulp_error(*c, x);
    std::cout << "  " << b.name << " over 20 pi to 823550: " << worst << " ULPs at x = " << worst_x << '\n';
    EXPECT_LE(worst, b.ulps) << b.name << " at x = " << worst_x;
  }
}

// Next to a zero of sin or cos or a pole of tan (a nonzero multiple of pi/2), the result is about the distance to it,
// and an argument reduction's absolute error becomes a relative one: the doubles nearest each multiple up to 2000 pi/2,
// four on each side, and doubles at 1e-8 to 1e-4 from multiples out to 400000 pi/2, where a careless reduction is
// thousands of ULPs off (xsimd's cos(-45.553093477052002) errs by 2.6e4). Random inputs almost never land there.
TEST(VectorMath, NextToZerosAndPolesTheErrorStaysInUlps) {
  const long double half_pi = 1.5707963267948966192313216916397514L;
  std::vector<double> xs;
  for (long k = -2000; k <= 2000; ++k) {
    double low = static_cast<double>((2 * k + 1) * half_pi), high = low;
    for (int j = 0; j < 4; ++j)
      low = std::nextafter(low, -1e300), high = std::nextafter(high, 1e300), xs.push_back(low), xs.push_back(high);
    for (double even : {static_cast<double>(2 * k * half_pi)})
      if (k != 0) xs.insert(xs.end(), {even, std::nextafter(even, -1e300), std::nextafter(even, 1e300)});
  }
  for (long k = 1; k <= 400000; k += 97)
    for (double d : {1e-8, 3e-8, 1e-7, 1e-6, 1e-4})
      for (double multiple : {static_cast<double>(k * half_pi), -static_cast<double>(k * half_pi)})
        xs.insert(xs.end(), {multiple + d, multiple - d});
  const Eigen::ArrayXd x = Eigen::Map<const Eigen::ArrayXd>(xs.data(), Eigen::Index(xs.size()));
  for (const auto& c : cases) {
    if (std::string_view(c.name) != "sin" && std::string_view(c.name) != "cos" && std::string_view(c.name) != "tan")
      continue;
    const auto [worst, worst_x] = largest_ulp_error(c, x);
    std::cout << "  " << c.name << " next to multiples of pi/2: " << worst << " ULPs at x = " << worst_x << '\n';
    EXPECT_LE(worst, c.ulp_bound) << c.name << " at x = " << worst_x;
  }
}

TEST(VectorMath, SpecialValuesAreTheCLibrarys) {
  constexpr double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  // Infinities, NaN and huge inputs, and each side of where tanh reaches +-1 and expm1 -1.
  // 709.5 and 709.78: finite results where xsimd's expm1 overflows.
  const std::vector<double> specials{0.0,     -0.0,  inf,    -inf,  nan,    -1.0,   -2.0,   1000.0,
                                     -1000.0, 709.5, 709.78, 710.0, -720.0, -745.0, -750.0, 19.0,
                                     -19.5,   20.5,  -37.0,  -38.0, 1e19,   -1e19,  1e308,  -1e308};
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

// Arrays of every length up to two registers and a tail: an element's value is the same at every
// position, whether a full register, a partial one or a single value computes it, and whatever its
// neighbours are. The values and neighbours straddle the bounds where xsimd's trigonometric functions switch
// their argument reduction by the largest value in the register (20 pi, 823550), where exp leaves normal
// results, and include NaN and infinity: alone, one comparison picks its way (math::sin of one value), in a register
// a test of every lane does.
TEST(VectorMath, AValueDoesNotDependOnItsPositionOrNeighbours) {
  constexpr double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  const double twenty_pi = 20 * std::numbers::pi, log_smallest_normal = std::log(std::numeric_limits<double>::min());
  const std::vector<double> values{0.7390851332151607,
                                   10.3,
                                   616.86,
                                   62.8,
                                   70.0,
                                   823000.0,
                                   9e5,
                                   -720.0,
                                   1e300,
                                   nan,
                                   inf,
                                   -inf,
                                   twenty_pi,
                                   -twenty_pi,
                                   std::nextafter(twenty_pi, inf),
                                   std::nextafter(twenty_pi, 0.0),
                                   log_smallest_normal,
                                   std::nextafter(log_smallest_normal, -inf),
                                   std::nextafter(log_smallest_normal, 0.0)};
  const std::vector<double> neighbours{0.3, 616.86, 1e6, nan, inf, -740.0};
  for (const auto& c : cases) {
    if (std::string_view(c.name) == "log") continue;  // one value alone is std::log's (vector_math.hpp says why)
    for (const double value : values) {
      const double alone = c.vectorised(Eigen::ArrayXd::Constant(1, value))[0];
      for (const double neighbour : neighbours) {
        for (Eigen::Index n = 1; n <= 19; ++n) {
          for (Eigen::Index at = 0; at < n; ++at) {
            Eigen::ArrayXd placed = Eigen::ArrayXd::Constant(n, neighbour);
            placed[at] = value;
            const double there = c.vectorised(placed)[at];
            EXPECT_TRUE(there == alone || (std::isnan(there) && std::isnan(alone)))
                << c.name << '(' << value << "): position " << at << " of " << n << " among " << neighbour << " is "
                << there << ", alone " << alone;
          }
        }
      }
    }
  }
}

// Signed zeros through the ops, at every position of vectors of 1 to 19 values, in both layers: -x of +0 is -0 (Eigen
// negates an AVX register as 0 - x, which gives +0), log1mexp's slope at either zero is -inf, the limit from below,
// and log_sigmoid(+inf) is +0, as PyTorch's.
TEST(VectorMath, SignedZerosDoNotDependOnPosition) {
  constexpr double inf = std::numeric_limits<double>::infinity();
  for (Eigen::Index n = 1; n <= 19; ++n) {
    for (Eigen::Index at = 0; at < n; ++at) {
      for (const double zero : {0.0, -0.0}) {
        Eigen::ArrayXd values = Eigen::ArrayXd::Constant(n, -0.3);
        values[at] = zero;
        const fg::Var<double, fg::Shape<fg::dyn>> x(values);
        const Eigen::ArrayXd negated = fg::eval(-x);
        EXPECT_EQ(std::signbit(negated[at]), !std::signbit(zero)) << "-(" << zero << ") at " << at << " of " << n;
        const auto [value, slope] = fg::vjp(fg::log1mexp(x), 1.0, x);
        EXPECT_EQ(slope[at], -inf) << "log1mexp'(" << zero << ") at " << at << " of " << n;
        const fg::Tensor t = fg::Tensor::from(values);
        const fg::Tensor taped_negation = fg::taped(-t);
        EXPECT_EQ(std::signbit(taped_negation.eigen()[at]), !std::signbit(zero))
            << "taped -(" << zero << ") at " << at << " of " << n;
      }
      // A difference's gradient for its right side is -dy: -0 for an upstream +0, in every lane (PyTorch's too). (Over
      // one value the node is a static sweep, whose gradients are added to +0: README, Limitations.)
      if (n > 1) {
        const fg::Tensor left = fg::Tensor::full({std::size_t(n)}, 1.0);
        fg::Tensor right = fg::Tensor::full({std::size_t(n)}, 2.0).requires_grad_();
        const fg::Tensor weighted = fg::sum(fg::taped(left - right) * fg::Tensor::zeros({std::size_t(n)}));
        weighted.backward();
        EXPECT_TRUE(std::signbit(right.grad().eigen()[at])) << "d(a - b)/db at " << at << " of " << n;
      }
      Eigen::ArrayXd large = Eigen::ArrayXd::Constant(n, 2.0);
      large[at] = inf;
      const Eigen::ArrayXd log_sigmoid = fg::eval(fg::log_sigmoid(fg::Const<double, fg::Shape<fg::dyn>>(large)));
      EXPECT_EQ(log_sigmoid[at], 0.0);
      EXPECT_FALSE(std::signbit(log_sigmoid[at])) << "log_sigmoid(inf) at " << at << " of " << n;
    }
  }
}

// Where sin and cos are both xsimd's, the sweep takes them together.
static_assert(fg::TakesValueWithSlope<fg::sin_op, double> == fg::math::sin_cos_together_v<double>);
static_assert(fg::TakesValueWithSlope<fg::cos_op, double> == fg::math::sin_cos_together_v<double>);
static_assert(!fg::TakesValueWithSlope<fg::sin_op, std::complex<double>>);
static_assert(!fg::TakesValueWithSlope<fg::tan_op, double>);

// sin_cos gives, for every element of every block length the sweep uses (fixed and run-time), exactly the values
// sin and cos give it, whichever neighbours share its register: it is what a sweep computes where it takes sin's
// value and slope together.
TEST(VectorMath, SinCosGivesSinAndCosValues) {
  constexpr double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  const std::vector<double> values{0.7390851332151607, -10.3, 62.8, 70.0, 823000.0, 9e5, 1e300, -0.0, inf, nan};
  const auto same = [](double a, double b) { return a == b || (std::isnan(a) && std::isnan(b)); };
  const auto check = [&](const auto& x) {
    auto s = x.eval(), c = x.eval();
    fg::math::sin_cos(x, s, c);
    const Eigen::ArrayXd x_values = x, sines = fg::math::sin(x_values), cosines = fg::math::cos(x_values);
    for (Eigen::Index i = 0; i < x.size(); ++i) {
      EXPECT_TRUE(same(s[i], sines[i])) << "sin(" << x[i] << ") at " << i << " of " << x.size() << ": " << s[i];
      EXPECT_TRUE(same(c[i], cosines[i])) << "cos(" << x[i] << ") at " << i << " of " << x.size() << ": " << c[i];
    }
  };
  constexpr int block = int(fg::detail::block_length);
  for (const double value : values) {
    for (const double neighbour : {0.3, 100.0, 1e6}) {
      for (Eigen::Index n = 1; n <= block; ++n) {
        using dynamic_block = Eigen::Array<double, Eigen::Dynamic, 1, Eigen::ColMajor, block, 1>;
        dynamic_block x = dynamic_block::Constant(n, neighbour);
        x[n - 1] = value;
        check(x);
      }
      Eigen::Array<double, block, 1> full = Eigen::Array<double, block, 1>::Constant(neighbour);
      full[block / 2] = value;
      check(full);
      check(Eigen::Array<double, 1, 1>::Constant(value));
      // fixed lengths that end in a partial register (with 2, 4 or 8 lanes)
      Eigen::Array<double, 3, 1> three = Eigen::Array<double, 3, 1>::Constant(neighbour);
      three[2] = value;
      check(three);
      Eigen::Array<double, 12, 1> twelve = Eigen::Array<double, 12, 1>::Constant(neighbour);
      twelve[10] = value;
      check(twelve);
    }
  }
}

// float's exp is Eigen's vectorised one (within 4 ULPs), except below log(FLT_MIN) ~ -87.34, where the result is
// subnormal or 0 and std::exp gives it (Eigen's returns 2.9e-39 there in SSE2 registers); at every position of an
// array.
TEST(VectorMath, FloatExpFallsToSubnormalNumbersAndZero) {
  constexpr float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> values{-80.0f, -87.3f, -87.4f, -88.0f, -89.0f, -95.0f, -103.0f, -104.0f, -110.0f, -inf};
  for (const float value : values) {
    const float want = std::exp(value);
    for (Eigen::Index n = 1; n <= 35; ++n) {
      for (Eigen::Index at = 0; at < n; ++at) {
        Eigen::ArrayXf x = Eigen::ArrayXf::Constant(n, 1.0f);
        x[at] = value;
        const float got = fg::math::exp(x).eval()[at];
        if (want < std::numeric_limits<float>::min()) {
          EXPECT_EQ(got, want) << "exp(" << value << "f) at position " << at << " of " << n;
        } else {
          EXPECT_NEAR(got, want, 4 * std::numeric_limits<float>::epsilon() * want) << "exp(" << value << "f)";
        }
      }
    }
  }
}

// Eigen's vectorised log takes a subnormal input for the smallest normal number (log(1e-310) would be -708.4, not
// -713.8): math::log's value is the C library's there, at every position of an array, in double and float; and the ops
// that take a log (log, log1mexp, pow's gradient for its exponent) give it in both layers.
template <class T>
void check_log_of_subnormal_numbers(const std::vector<T>& values) {
  for (const T value : values) {
    const T want = std::log(value);
    for (Eigen::Index n = 1; n <= 35; ++n) {
      for (Eigen::Index at = 0; at < n; ++at) {
        Eigen::Array<T, Eigen::Dynamic, 1> x = Eigen::Array<T, Eigen::Dynamic, 1>::Constant(n, T(0.5));
        x[at] = value;
        const Eigen::Array<T, Eigen::Dynamic, 1> got = fg::math::log(x);
        if (std::isnan(want))
          EXPECT_TRUE(std::isnan(got[at])) << "log(" << value << ") at position " << at << " of " << n;
        else
          EXPECT_EQ(got[at], want) << "log(" << value << ") at position " << at << " of " << n;
        for (Eigen::Index k = 0; k < n; ++k)
          if (k != at) EXPECT_NEAR(got[k], std::log(T(0.5)), 4 * std::numeric_limits<T>::epsilon());
      }
    }
  }
}
TEST(VectorMath, LogOfSubnormalNumbersIsTheCLibrarys) {
  const double dmin = std::numeric_limits<double>::min();
  check_log_of_subnormal_numbers<double>({5e-324, 1e-320, 1e-310, 3e-309, std::nextafter(dmin, 0.0), dmin, 0.0, -0.0,
                                          -1e-310, std::numeric_limits<double>::quiet_NaN()});
  const float fmin = std::numeric_limits<float>::min();
  check_log_of_subnormal_numbers<float>({1e-45f, 1e-42f, 1e-40f, std::nextafter(fmin, 0.0f), fmin, 0.0f, -1e-40f,
                                         std::numeric_limits<float>::quiet_NaN()});

  // The ops: log and log1mexp (log(-expm1(x)) is log of a subnormal number for x = -1e-310), and d/db of a^b, which
  // is a^b log(a), at a = 1e-310, in the static layer, one tape node and fg::taped. 37 values, so that whole registers
  // mix log1mexp's two forms (x above and below -log 2) where it computes both and picks by a mask.
  const std::vector<double> cycle{1e-310, 0.5, 5e-324, 2.0, 1e-320, 0.7, 0.69, 40.0};
  std::vector<double> a_values(37);
  for (std::size_t k = 0; k < a_values.size(); ++k) a_values[k] = cycle[k % cycle.size()];
  const auto n = Eigen::Index(a_values.size());
  Eigen::ArrayXd a_data(n);
  std::copy(a_values.begin(), a_values.end(), a_data.begin());
  const Eigen::ArrayXd x_data = -a_data;
  const Eigen::ArrayXd b_data = Eigen::ArrayXd::Constant(n, 0.5);
  fg::Var<double, fg::Shape<fg::dyn>> a(a_data), b(b_data), x(x_data);
  const Eigen::ArrayXd logs = fg::eval(fg::log(a));
  const Eigen::ArrayXd log1mexps = fg::eval(fg::log1mexp(x));
  const auto db = fg::grad(fg::sum(fg::pow(a, b)), b);
  fg::Tensor ta = fg::Tensor::from(a_data, {std::size_t(n)}), tb = fg::Tensor::from(b_data, {std::size_t(n)});
  tb.requires_grad_();
  for (Eigen::Index i = 0; i < n; ++i) {
    SCOPED_TRACE("a = " + std::to_string(a_values[std::size_t(i)]));
    const double log_a = std::log(a_data[i]), eps = std::numeric_limits<double>::epsilon();
    if (a_data[i] < std::numeric_limits<double>::min())
      EXPECT_EQ(logs[i], log_a);  // the C library's (Eigen's would be -708.4)
    else
      EXPECT_NEAR(logs[i], log_a, 2 * eps * std::abs(log_a));  // Eigen's log in registers, within its ULPs
    const double log1mexp =
        x_data[i] > -std::numbers::ln2 ? std::log(-std::expm1(x_data[i])) : std::log1p(-std::exp(x_data[i]));
    EXPECT_NEAR(log1mexps[i], log1mexp, 1e-15 * std::abs(log1mexp));
    EXPECT_NEAR(db[i], std::pow(a_data[i], 0.5) * log_a, 4e-16 * std::abs(std::pow(a_data[i], 0.5) * log_a));
  }
  for (const bool fused : {true, false}) {
    tb.zero_grad();
    const fg::Tensor l = fused ? fg::Tensor(fg::log(ta) * 1.0) : fg::taped(fg::log(ta));  // a sweep; one op
    (fused ? fg::Tensor(fg::sum(fg::pow(ta, tb))) : fg::taped(fg::sum(fg::pow(ta, tb)))).backward();
    for (Eigen::Index i = 0; i < n; ++i) {
      SCOPED_TRACE(std::string(fused ? "one tape node" : "fg::taped") +
                   ", a = " + std::to_string(a_values[std::size_t(i)]));
      EXPECT_NEAR(l.data()[i], logs[i], 2 * std::numeric_limits<double>::epsilon() * std::abs(logs[i]));
      if (a_data[i] < std::numeric_limits<double>::min()) EXPECT_EQ(l.data()[i], logs[i]);
      EXPECT_NEAR(tb.grad().data()[i], db[i], 4e-16 * std::abs(db[i]));
    }
  }
}

// sqrt is correctly rounded in every register, as std::sqrt is, with its IEEE results at +inf, subnormal numbers and
// -0: Eigen's own float registers on x86, and its double registers with AVX-512, take a reciprocal square root and
// Newton steps instead.
template <class T>
void expect_sqrt_is_the_c_librarys() {
  using array = Eigen::Array<T, Eigen::Dynamic, 1>;
  const T inf = std::numeric_limits<T>::infinity(), smallest = std::numeric_limits<T>::denorm_min();
  array x = array::LinSpaced(4099, T(1e-3), T(1e3));
  const T specials[] = {T(0), T(-0.0), inf, smallest, T(3) * smallest, std::numeric_limits<T>::min(), T(2), T(4)};
  for (std::size_t k = 0; k < std::size(specials); ++k) x[Eigen::Index(37 * k)] = specials[k];
  const array roots = fg::math::sqrt(x);
  int wrong = 0;
  for (Eigen::Index i = 0; i < x.size(); ++i) {
    const T want = std::sqrt(x[i]);
    if (roots[i] != want || std::signbit(roots[i]) != std::signbit(want)) {
      if (++wrong <= 5) ADD_FAILURE() << "sqrt(" << x[i] << ") is " << roots[i] << ", std::sqrt's " << want;
    }
  }
  EXPECT_EQ(wrong, 0) << Eigen::internal::packet_traits<T>::size << " values per register";
}

TEST(VectorMath, SqrtIsCorrectlyRounded) {
  expect_sqrt_is_the_c_librarys<float>();
  expect_sqrt_is_the_c_librarys<double>();
}

// The ops use these functions in both layers: sin's gradient is cos, computed the same way, and cos's is -sin,
// whether the sweep takes value and slope together (sin_cos) or not (a forward evaluation, a tape node's VJP).
TEST(VectorMath, TheOpsUseThem) {
  Eigen::ArrayXd data = Eigen::ArrayXd::LinSpaced(19, -1, 3);
  data[7] = 1e6;  // a register that needs the C library
  fg::Var<double, fg::Shape<fg::dyn>> x(data);
  const Eigen::ArrayXd sines = fg::math::sin(data), cosines = fg::math::cos(data);
  const auto [value, dx] = fg::value_and_grad(fg::sum(fg::sin(x)), x);
  EXPECT_NEAR(value, sines.sum(), 1e-14);
  for (Eigen::Index i = 0; i < data.size(); ++i) EXPECT_EQ(dx[i], cosines[i]) << "x = " << data[i];
  const auto [cos_value, cos_dx] = fg::value_and_grad(fg::sum(fg::cos(x)), x);
  EXPECT_NEAR(cos_value, cosines.sum(), 1e-14);
  for (Eigen::Index i = 0; i < data.size(); ++i) EXPECT_EQ(cos_dx[i], -sines[i]) << "x = " << data[i];
  // Values: evaluated alone, and as the block values of a sweep that goes back (vjp returns them).
  const Eigen::ArrayXd evaluated = fg::eval(fg::sin(x) * fg::cos(x));
  const auto [swept, unused] = fg::vjp(fg::sin(x) * fg::cos(x), Eigen::ArrayXd::Ones(19).eval(), x);
  for (Eigen::Index i = 0; i < data.size(); ++i) {
    EXPECT_EQ(evaluated[i], sines[i] * cosines[i]) << "x = " << data[i];
    EXPECT_EQ(swept[i], sines[i] * cosines[i]) << "x = " << data[i];
  }
  // The tape: a fused node (value and slope together), one node per op (value and vjp).
  fg::Tensor t = fg::Tensor::from(data, {19}).requires_grad_();
  for (const bool fused : {true, false}) {
    t.zero_grad();
    const fg::Tensor y = fused ? fg::Tensor(fg::sin(t) * fg::cos(t)) : fg::taped(fg::sin(t) * fg::cos(t));
    fg::Tensor(fg::sum(y)).backward();
    for (Eigen::Index i = 0; i < data.size(); ++i) {
      EXPECT_EQ(y.data()[i], sines[i] * cosines[i]) << (fused ? "fused" : "taped") << ", x = " << data[i];
      // (a compiler may contract the products and the sum into a fused multiply-add)
      EXPECT_NEAR(t.grad().data()[i], cosines[i] * cosines[i] - sines[i] * sines[i], 1e-15)
          << (fused ? "fused" : "taped") << ", x = " << data[i];
    }
  }
}

}  // namespace
