// benchmark/gradient_benchmarks_test.cpp -- fusegrad/benchmark.hpp: what register_gradient_benchmarks registers,
// the gradients it refuses, and the summary run_gradient_benchmarks prints.
#include <cmath>
#include <limits>
#include <set>
#include <string>
#include <type_traits>
#include <vector>

#include <gtest/gtest.h>

#include <fusegrad/benchmark.hpp>
#include <fusegrad/fusegrad.hpp>

namespace fg = fusegrad;

namespace {

// f(x, w) = sum(x * w * w) + sum(w): df/dw = 2 x w + 1, df/dx = w^2; x is data here.
const auto weighted = [](const auto& x, const auto& w) { return fg::sum(x * w * w) + fg::sum(w); };

// The same by hand; `error_at` >= 0 adds 1 to that element of the gradient.
auto weighted_by_hand(int error_at = -1, double value_offset = 0) {
  return [=](const auto& x, const auto& w, auto& dw) {
    dw = 2 * x * w + 1;
    if (error_at >= 0) dw(error_at) += 1;
    return (x * w * w).sum() + w.sum() + value_offset;
  };
}

// Collects the names of the runs it is shown, printing nothing.
class NameCollector : public benchmark::BenchmarkReporter {
 public:
  bool ReportContext(const Context&) override { return true; }
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& run : runs) names.insert(run.benchmark_name());
  }
  std::set<std::string> names;
};

fg::Const<double, fg::Shape<fg::dyn>> data() { return fg::Const<double, fg::Shape<fg::dyn>>({3}, {1.0, 2.0, 3.0}); }
fg::Var<double, fg::Shape<fg::dyn>> weights() { return fg::Var<double, fg::Shape<fg::dyn>>({3}, {0.5, -1.0, 2.0}); }

TEST(GradientBenchmarks, RegistersEveryVariantUnderItsName) {
  fg::register_gradient_benchmarks("registers", weighted, data(), weights())
      .handwritten(weighted_by_hand())
      .apply([](auto* b) { b->Iterations(2); });
  NameCollector collector;
  benchmark::RunSpecifiedBenchmarks(&collector, "^registers/");
  EXPECT_EQ(collector.names,
            (std::set<std::string>{"registers/fused/3/iterations:2", "registers/tape_fused/3/iterations:2",
                                   "registers/taped/3/iterations:2", "registers/handwritten/3/iterations:2"}));
}

TEST(GradientBenchmarks, NamesTheLargestInputsElementCount) {
  const fg::Var<double, fg::Shape<2, 4>> m(Eigen::MatrixXd::Constant(2, 4, 0.5));
  const fg::Var<double, fg::Shape<>> s(3.0);
  fg::register_gradient_benchmarks(
      "largest", [](const auto& a, const auto& b) { return fg::sum(a * b); }, m, s)
      .apply([](auto* b) { b->Iterations(1); });
  NameCollector collector;
  benchmark::RunSpecifiedBenchmarks(&collector, "^largest/");
  EXPECT_TRUE(collector.names.count("largest/taped/8/iterations:1")) << ::testing::PrintToString(collector.names);
}

TEST(GradientBenchmarks, RefusesAWrongHandWrittenGradientNamingInputAndElement) {
  auto benchmarks = fg::register_gradient_benchmarks("refuses_gradient", weighted, data(), weights());
  try {
    benchmarks.handwritten(weighted_by_hand(2));
    FAIL() << "a gradient off by 1 at element 2 was accepted";
  } catch (const fg::value_error& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("\"refuses_gradient\""), std::string::npos) << message;
    EXPECT_NE(message.find("hand-written gradient of input 1"), std::string::npos) << message;
    EXPECT_NE(message.find("at element 2: 14 against 13"), std::string::npos) << message;
  }
  NameCollector collector;
  benchmark::RunSpecifiedBenchmarks(&collector, "^refuses_gradient/handwritten");
  EXPECT_TRUE(collector.names.empty()) << "the refused variant was registered";
}

TEST(GradientBenchmarks, RefusesAHandWrittenFunctionWithAnotherValue) {
  // f = 1*0.25 + 2*1 + 3*4 + (0.5 - 1 + 2) = 15.75
  auto benchmarks = fg::register_gradient_benchmarks("refuses_value", weighted, data(), weights());
  try {
    benchmarks.handwritten(weighted_by_hand(-1, 0.5));
    FAIL() << "a value off by 0.5 was accepted";
  } catch (const fg::value_error& e) {
    EXPECT_NE(std::string(e.what()).find("the hand-written value is 16.25, the fused one 15.75"), std::string::npos)
        << e.what();
  }
}

// The variants must compute the same function: a fn that adds 1000 on tensors only is refused, naming the values.
TEST(GradientBenchmarks, RefusesVariantsWithDifferentValues) {
  const auto differs = [](const auto& x, const auto& w) {
    if constexpr (fg::detail::is_tensor_v<std::remove_cvref_t<decltype(w)>>)
      return fg::Tensor(fg::sum(x * w) + 1000.0);
    else
      return fg::sum(x * w);
  };
  try {
    (void)fg::register_gradient_benchmarks("refuses_variant_value", differs, data(), weights());
    FAIL() << "variants with different values were accepted";
  } catch (const fg::value_error& e) {
    EXPECT_NE(std::string(e.what()).find("the fused value is 4.5, the taped one 1004.5"), std::string::npos)
        << e.what();
  }
}

// run_gradient_benchmarks reads --benchmark_format and --benchmark_color as Google Benchmark does (the last on the
// command line, else the environment's BENCHMARK_FORMAT): JSON or CSV leave its own output alone, and colour follows
// Google Benchmark's yes and no (auto: a terminal).
TEST(GradientBenchmarks, ReadsTheFormatAndColourFlagsAsGoogleBenchmarkDoes) {
  std::string program = "bench", format = "--benchmark_format=json", colour = "--benchmark_color=false",
              again = "--benchmark_color=On";
  char* argv[] = {program.data(), format.data(), colour.data(), again.data()};
  EXPECT_EQ(fg::detail::benchmark_flag(4, argv, "benchmark_format"), "json");
  EXPECT_EQ(fg::detail::benchmark_flag(4, argv, "benchmark_color"), "On");
  ::setenv("BENCHMARK_FORMAT", "csv", 1);
  EXPECT_EQ(fg::detail::benchmark_flag(1, argv, "benchmark_format"), "csv");
  ::unsetenv("BENCHMARK_FORMAT");
  EXPECT_EQ(fg::detail::benchmark_flag(1, argv, "benchmark_format"), "");
  for (const char* no : {"false", "No", "OFF", "0", "f", "N"}) EXPECT_FALSE(fg::detail::console_colour(no)) << no;
  for (const char* yes : {"true", "yes", "On", "1", "t", "Y"}) EXPECT_TRUE(fg::detail::console_colour(yes)) << yes;
}

// Variants that agree exactly agree, infinities and NaNs included: sqrt's gradient at 0 is infinite in each, its value
// and gradient at -1 NaN in each. A value that is not finite agrees only with the same.
TEST(GradientBenchmarks, AgreeingInfinitiesAndNansAreAgreement) {
  const auto sqrt_sum = [](const auto& x) { return fg::sum(fg::sqrt(x)); };
  EXPECT_NO_THROW(
      (void)fg::register_gradient_benchmarks("sqrt_at_zero", sqrt_sum, fg::Var<double, fg::Shape<3>>{0, 1, 4}));
  EXPECT_NO_THROW(
      (void)fg::register_gradient_benchmarks("sqrt_at_minus_one", sqrt_sum, fg::Var<double, fg::Shape<2>>{-1, 4}));
  auto benchmarks = fg::register_gradient_benchmarks("infinite_value", weighted, data(), weights());
  const auto infinite = [](const auto& x, const auto& w, auto& dw) {
    dw = 2 * x * w + 1;  // the right gradient: only the value is wrong
    return std::numeric_limits<double>::infinity();
  };
  EXPECT_THROW(benchmarks.handwritten(infinite), fg::value_error);
}

TEST(GradientBenchmarks, RefusesAWrongGradientWhateverItsScale) {
  // mean(x * w) over 4096 floats: every gradient is x / 4096, well below 1e-4; a hand-written one
  // twice as large is wrong however small.
  const fg::Const<float, fg::Shape<fg::dyn>> x(Eigen::ArrayXf::LinSpaced(4096, 0.5f, 1.0f));
  const fg::Var<float, fg::Shape<fg::dyn>> w(Eigen::ArrayXf::Constant(4096, 0.25f));
  const auto loss = [](const auto& x, const auto& w) { return fg::mean(x * w); };
  const auto twice = [](const auto& x, const auto& w, auto& dw) {
    dw = 2 * x / 4096;
    return (x * w).mean();
  };
  const auto right = [](const auto& x, const auto& w, auto& dw) {
    dw = x / 4096;
    return (x * w).mean();
  };
  EXPECT_THROW(fg::register_gradient_benchmarks("small_wrong", loss, x, w).handwritten(twice), fg::value_error);
  EXPECT_NO_THROW(fg::register_gradient_benchmarks("small_right", loss, x, w).handwritten(right));
}

// d/db sum(x * b) over centred data is a sum that cancels: a loop that sums in another order than fusegrad's gets
// rounding noise of the size of the terms' sum times the precision, far above 1e-10 of the cancelled result. Here the
// terms are multiples of 2^-10 (times `scale`) whose every partial sum is exact, so fusegrad's variants agree exactly
// in every build, and the hand-written loop adds such noise on purpose (4096 terms of up to 2: up to 1e-12 * scale).
// Refused without an absolute tolerance, the loop is taken with one, in its gradient and in its value, which cancels
// with it; a wrong gradient is still refused.
TEST(GradientBenchmarks, AGradientThatCancelsToRoundingNoiseTakesAnAbsoluteTolerance) {
  for (const double scale : {1.0, 1e6}) {
    Eigen::ArrayXd terms(4096);
    for (Eigen::Index i = 0; i < terms.size(); ++i)  // +k/1024, then -k/1024, and one more 2^-10: the sum is 2^-10
      terms(i) = (i < 2048 ? 1.0 : -1.0) * double(i % 2048) / 1024.0 * scale;
    terms(0) = scale / 1024.0;
    ASSERT_EQ(terms.sum(), scale / 1024.0);
    const fg::Const<double, fg::Shape<fg::dyn>> x(terms);
    const fg::Var<double, fg::Shape<>> b(0.5);
    const auto f = [](const auto& x, const auto& b) { return fg::sum(x * b); };
    const double noise = 1e-12 * scale;
    const auto noisy = [noise](const auto& x, const auto& b, auto& db) {
      db(0) = x.sum() + noise;
      return db(0) * b(0);
    };
    const auto off_by_one = [&](const auto& x, const auto& b, auto& db) {
      const double value = noisy(x, b, db);
      db(0) += 1;
      return value;
    };
    const std::string name = "cancels_" + std::to_string(int(scale));
    try {
      fg::register_gradient_benchmarks(name, f, x, b).handwritten(noisy);
      FAIL() << "noise of " << noise << " on a gradient of " << scale / 1024.0 << " was accepted";
    } catch (const fg::value_error& e) {
      EXPECT_NE(std::string(e.what()).find(".handwritten(fn, atol)"), std::string::npos) << e.what();
    }
    EXPECT_NO_THROW(fg::register_gradient_benchmarks(name + "_atol", f, x, b).handwritten(noisy, 10 * noise));
    EXPECT_THROW(fg::register_gradient_benchmarks(name + "_wrong", f, x, b).handwritten(off_by_one, 10 * noise),
                 fg::value_error);
  }
  const fg::Const<double, fg::Shape<fg::dyn>> x(Eigen::ArrayXd::Ones(4));
  const fg::Var<double, fg::Shape<>> b(0.5);
  const auto exact = [](const auto& x, const auto& b, auto& db) {
    db(0) = x.sum();
    return db(0) * b(0);
  };
  auto benchmarks = fg::register_gradient_benchmarks(
      "cancels_nan", [](const auto& x, const auto& b) { return fg::sum(x * b); }, x, b);
  EXPECT_THROW(benchmarks.handwritten(exact, std::nan("")), fg::value_error);
  EXPECT_THROW(benchmarks.handwritten(exact, -1.0), fg::value_error);
}

TEST(GradientBenchmarks, AVarTheFunctionDoesNotUseHasAZeroGradient) {
  const fg::Var<double, fg::Shape<2>> used{1.0, 2.0}, unused{3.0, 4.0};
  const auto f = [](const auto& a, const auto&) { return fg::sum(a * a); };
  const auto by_hand = [](const auto& a, const auto&, auto& da, auto& db) {
    da = 2 * a;
    db.setZero();
    return a.square().sum();
  };
  EXPECT_NO_THROW(fg::register_gradient_benchmarks("unused", f, used, unused).handwritten(by_hand));
}

TEST(GradientBenchmarks, FloatInputsAndSeveralVars) {
  // g(a, b) = sum(a * b) / 2 + sum(exp(a)): dg/da = b / 2 + exp(a), dg/db = a / 2.
  const fg::Var<float, fg::Shape<4>> a{0.1f, 0.2f, 0.3f, 0.4f};
  const fg::Var<float, fg::Shape<4>> b{1.0f, 2.0f, 3.0f, 4.0f};
  const auto g = [](const auto& a, const auto& b) { return fg::sum(a * b) / 2.0f + fg::sum(fg::exp(a)); };
  const auto g_by_hand = [](const auto& a, const auto& b, auto& da, auto& db) {
    da = b / 2 + a.exp();
    db = a / 2;
    return (a * b).sum() / 2 + a.exp().sum();
  };
  EXPECT_NO_THROW(fg::register_gradient_benchmarks("float", g, a, b).handwritten(g_by_hand));
  const auto swapped = [](const auto& a, const auto& b, auto& da, auto& db) {
    da = a / 2;  // the two gradients exchanged
    db = b / 2 + a.exp();
    return (a * b).sum() / 2 + a.exp().sum();
  };
  EXPECT_THROW(fg::register_gradient_benchmarks("float_swapped", g, a, b).handwritten(swapped), fg::value_error);
}

TEST(GradientBenchmarks, PrintsOneLinePerSizeOfAFunctionRegisteredTwice) {
  const fg::Var<double, fg::Shape<fg::dyn>> four({4}, {1.0, 2.0, 3.0, 4.0});
  for (int k = 0; k < 2; ++k)
    fg::register_gradient_benchmarks("twice", weighted, data(), weights()).apply([](auto* b) { b->Iterations(1); });
  fg::register_gradient_benchmarks(
      "twice", [](const auto& w) { return fg::sum(w * w); }, four)
      .apply([](auto* b) { b->Iterations(1); });
  char program[] = "gradient_benchmarks_test";
  char filter[] = "--benchmark_filter=^twice/";
  char* argv[] = {program, filter, nullptr};
  ::testing::internal::CaptureStdout();
  fg::run_gradient_benchmarks(2, argv);
  const std::string out = ::testing::internal::GetCapturedStdout();
  const auto count = [&](const std::string& what) {
    std::size_t n = 0;
    for (std::size_t at = out.find(what); at != std::string::npos; at = out.find(what, at + 1)) ++n;
    return n;
  };
  EXPECT_EQ(count("twice/N=3: "), 1u) << out;
  EXPECT_EQ(count("twice/N=4: "), 1u) << out;
}

TEST(GradientBenchmarks, PrintsEachVariantsTimeAndRatio) {
  fg::register_gradient_benchmarks("summary", weighted, data(), weights())
      .handwritten(weighted_by_hand())
      .apply([](auto* b) { b->Iterations(2); });
  char program[] = "gradient_benchmarks_test";
  char filter[] = "--benchmark_filter=^summary/";
  char* argv[] = {program, filter, nullptr};
  ::testing::internal::CaptureStdout();
  const int status = fg::run_gradient_benchmarks(2, argv);
  const std::string out = ::testing::internal::GetCapturedStdout();
  EXPECT_EQ(status, 0);
  EXPECT_NE(out.find("summary/N=3: fused "), std::string::npos) << out;
  for (const char* part : {"x fused), taped ", "(fused / hand-written "})
    EXPECT_NE(out.find(part), std::string::npos) << part << " in\n" << out;
}

}  // namespace
