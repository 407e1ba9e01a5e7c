// benchmark/ratio_reporter.hpp -- run_gradient_benchmarks: Google Benchmark's console table, then one line per
// function registered with register_gradient_benchmarks giving its variants' times and ratios.
#pragma once

#include <cstdio>
#include <map>
#include <string>
#include <vector>

#if __has_include(<unistd.h>)
#include <unistd.h>
#endif

#include <benchmark/benchmark.h>

#include <fusegrad/benchmark/benchmark_flags.hpp>

namespace fusegrad {

namespace detail {

// The names registered by register_gradient_benchmarks, for run_gradient_benchmarks' summary.
inline std::vector<std::string>& gradient_benchmark_names() {
  static std::vector<std::string> names;
  return names;
}

// Google Benchmark's console output, then for every function registered by
// register_gradient_benchmarks one line of its variants' CPU times and ratios.
class gradient_ratio_reporter : public benchmark::ConsoleReporter {
 public:
  explicit gradient_ratio_reporter(bool colour) : ConsoleReporter(colour ? OO_ColorTabular : OO_Tabular) {}

  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& run : runs) {
      const bool usable = run.run_type == Run::RT_Aggregate ? run.aggregate_name == "median" : run.repetitions <= 1;
      if (usable && !failed(run))
        cpu_ns_[run.run_name.function_name] =
            run.GetAdjustedCPUTime() * 1e9 / benchmark::GetTimeUnitMultiplier(run.time_unit);
    }
    ConsoleReporter::ReportRuns(runs);
  }

  void Finalize() override {
    ConsoleReporter::Finalize();
    for (const std::string& prefix : gradient_benchmark_names()) {
      for (auto [name, fused] : cpu_ns_) {
        // name is <prefix>fused/<N>: print that N's line.
        if (name.rfind(prefix + "fused/", 0) != 0) continue;
        const std::string size = name.substr(prefix.size() + 6);
        const auto time = [&](const char* variant) {
          const auto found = cpu_ns_.find(prefix + variant + "/" + size);
          return found == cpu_ns_.end() ? -1.0 : found->second;
        };
        std::printf("\n%sN=%s: fused %s", prefix.c_str(), size.c_str(), readable(fused).c_str());
        for (const char* variant : {"tape_fused", "taped"})
          if (const double t = time(variant); t >= 0)
            std::printf(", %s %s (%.2fx fused)", variant, readable(t).c_str(), t / fused);
        if (const double t = time("handwritten"); t >= 0)
          std::printf(", hand-written %s (fused / hand-written %.2f)", readable(t).c_str(), fused / t);
        std::printf("\n");
      }
    }
  }

 private:
  // Google Benchmark 1.8 replaced Run::error_occurred with Run::skipped (an error, or a skip the benchmark asked for).
  template <class R>
  static bool failed(const R& run) {
    if constexpr (requires { run.skipped; })
      return run.skipped != decltype(run.skipped){};
    else
      return run.error_occurred;
  }
  static std::string readable(double ns) {
    char text[32];
    const char* unit = ns < 1e3 ? "ns" : ns < 1e6 ? "us" : ns < 1e9 ? "ms" : "s";
    const double scale = ns < 1e3 ? 1 : ns < 1e6 ? 1e3 : ns < 1e9 ? 1e6 : 1e9;
    std::snprintf(text, sizeof text, "%.3g %s", ns / scale, unit);
    return text;
  }

  std::map<std::string, double> cpu_ns_;
};

}  // namespace detail

/// Runs the registered benchmarks (Google Benchmark's command line flags apply: --benchmark_filter,
/// --benchmark_repetitions, --benchmark_out=FILE for JSON, --benchmark_color ...), printing its console table and
/// then, per function registered with register_gradient_benchmarks, the variants' times and ratios
/// (the median's, with repetitions). With --benchmark_format=json or csv, Google Benchmark's own output alone. A
/// main() for such a program.
inline int run_gradient_benchmarks(int argc, char** argv) {
  const std::string format = detail::benchmark_flag(argc, argv, "benchmark_format");
  const std::string colour = detail::benchmark_flag(argc, argv, "benchmark_color");
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  if (format.empty() || format == "console") {
    detail::gradient_ratio_reporter reporter(detail::console_colour(colour));
    benchmark::RunSpecifiedBenchmarks(&reporter);
  } else {
    benchmark::RunSpecifiedBenchmarks();
  }
  benchmark::Shutdown();
  return 0;
}

}  // namespace fusegrad
