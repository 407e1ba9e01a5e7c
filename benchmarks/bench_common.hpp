// bench_common.hpp -- shared inputs and checks for the B1-B5 benchmark cases, seeded and reproducible.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <benchmark/benchmark.h>
#include <Eigen/Core>

namespace fusegrad::bench {

/// n values drawn uniformly from [lo, hi) with a fixed seed, so every variant sees the same data.
inline Eigen::ArrayXd uniform(Eigen::Index n, double lo, double hi, std::uint32_t seed = 42) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> dist(lo, hi);
  Eigen::ArrayXd out(n);
  for (auto& v : out) v = dist(gen);
  return out;
}

/// Makes a variable's value opaque to the compiler, as a caller's live parameter is: it must store the value before
/// and load it after, as if something had read and changed it. The address goes through benchmark::DoNotOptimize, not
/// the double itself: g++ 12 drops the store before DoNotOptimize(double&) (its asm's "+m,r" operand), so the value
/// read after it was never written.
template <class T>
inline void opaque(T& value) {
  benchmark::DoNotOptimize(&value);
}

/// The fastest of a benchmark's repetitions, as the statistic "min" (ComputeStatistics): a
/// shared machine's load only ever adds time, so it bounds what the code itself costs from
/// above with the least load in it. report.py prints it beside the median.
inline double fastest(const std::vector<double>& times) { return *std::min_element(times.begin(), times.end()); }

/// How a check scales its relative tolerance: by the largest |want| (a gradient whose small entries are sums that
/// cancel, as a scalar parameter's over data is), or by each element's own |want| (values computed element by element,
/// such as a matrix product's or an optimiser's step). Either way at least 1.
enum class relative_to { largest, each };

/// Stops the program, naming the variant and the first element that differs, unless `got` and `want` (the reference)
/// agree to `rtol`: a variant is timed only after it computes the right numbers.
inline void check_values(std::string_view variant, std::string_view what, std::span<const double> got,
                         std::span<const double> want, double rtol, relative_to scale) {
  double largest = 0;
  for (const double w : want) largest = std::max(largest, std::abs(w));
  const auto tolerance = [&](double w) {
    return rtol * std::max(scale == relative_to::largest ? largest : std::abs(w), 1.0);
  };
  bool same = got.size() == want.size();
  std::size_t worst = 0;
  for (std::size_t k = 0; same && k < got.size(); ++k) {
    if (!(std::abs(got[k] - want[k]) <= tolerance(want[k]))) {
      same = false;
      worst = k;
    }
  }
  if (same) return;
  std::fprintf(stderr, "%.*s: %.*s differs from the reference", int(variant.size()), variant.data(), int(what.size()),
               what.data());
  if (got.size() != want.size())
    std::fprintf(stderr, " (%zu values, not %zu)\n", got.size(), want.size());
  else
    std::fprintf(stderr, " at element %zu: %.17g, not %.17g\n", worst, got[worst], want[worst]);
  std::abort();
}

/// check_values for a gradient `what` (dx, dW ...) against the hand-written one.
inline void check_gradient(std::string_view variant, std::string_view what, std::span<const double> got,
                           std::span<const double> want, double rtol = 1e-9, relative_to scale = relative_to::largest) {
  check_values(variant, "the gradient " + std::string(what), got, want, rtol, scale);
}
inline void check_gradient(std::string_view variant, std::string_view what, double got, double want,
                           double rtol = 1e-9) {
  check_gradient(variant, what, std::span<const double>(&got, 1), std::span<const double>(&want, 1), rtol);
}

/// Stops the program unless a variant's value (the loss) agrees with `want` to `rtol`: a variant that
/// skipped work the gradient does not need would pass the gradient's check alone.
inline void check_value(std::string_view variant, double got, double want, double rtol = 1e-9) {
  if (std::abs(got - want) <= rtol * std::max(std::abs(want), 1.0)) return;
  std::fprintf(stderr, "%.*s: the value is %.17g, not %.17g\n", int(variant.size()), variant.data(), got, want);
  std::abort();
}

/// Bytes per element touched, for Google Benchmark's bytes_per_second counter.
inline constexpr double bytes_per_double = sizeof(double);

}  // namespace fusegrad::bench
