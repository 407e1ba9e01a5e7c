// bench_common.hpp -- shared inputs for the B1-B5 benchmark cases (DESIGN.md), seeded and reproducible.
#pragma once

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

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

/// The fastest of a benchmark's repetitions, as the statistic "min" (ComputeStatistics): a
/// shared machine's load only ever adds time, so it bounds what the code itself costs from
/// above with the least load in it. report.py prints it beside the median.
inline double fastest(const std::vector<double>& times) { return *std::min_element(times.begin(), times.end()); }

/// Bytes per element touched, for Google Benchmark's bytes_per_second counter.
inline constexpr double bytes_per_double = sizeof(double);

}  // namespace fusegrad::bench
