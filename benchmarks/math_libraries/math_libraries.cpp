// math_libraries.cpp -- the measurement behind fusegrad's choice of vectorised math: for exp, log, sin, cos, tan,
// tanh, log1p and expm1 of double, the largest error in ULPs against long double and the time per array of five
// implementations: the C library one element at a time (std), Eigen 3.4's array functions, xsimd, SLEEF (its
// 1-ULP functions) and glibc's vector math library (libmvec, through its vector-ABI symbols). Each works over
// whole registers of the widest kind the build targets. Built as bench_math_libraries when SLEEF is installed
// (benchmarks/CMakeLists.txt); the figures are in benchmarks/results/simd-math.md.
#include <benchmark/benchmark.h>
#include <immintrin.h>
#include <sleef.h>

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>
#include <xsimd/xsimd.hpp>

namespace {

// One register of the widest kind the build targets, and the SLEEF and libmvec functions for it.
#if defined(__AVX512F__)
using reg = __m512d;
constexpr std::size_t width = 8;
#define SLEEF(fn) Sleef_##fn##d8_u10avx512f
#define MVEC(fn) _ZGVeN8v_##fn
inline reg load(const double* p) { return _mm512_loadu_pd(p); }
inline void store(double* p, reg r) { _mm512_storeu_pd(p, r); }
#elif defined(__AVX2__)
using reg = __m256d;
constexpr std::size_t width = 4;
#define SLEEF(fn) Sleef_##fn##d4_u10avx2
#define MVEC(fn) _ZGVdN4v_##fn
inline reg load(const double* p) { return _mm256_loadu_pd(p); }
inline void store(double* p, reg r) { _mm256_storeu_pd(p, r); }
#else
using reg = __m128d;
constexpr std::size_t width = 2;
#define SLEEF(fn) Sleef_##fn##d2_u10sse2
#define MVEC(fn) _ZGVbN2v_##fn
inline reg load(const double* p) { return _mm_loadu_pd(p); }
inline void store(double* p, reg r) { _mm_storeu_pd(p, r); }
#endif

// libmvec's functions, declared by their vector-function-ABI names (math.h declares them only for -ffast-math).
extern "C" {
reg MVEC(exp)(reg);
reg MVEC(log)(reg);
reg MVEC(sin)(reg);
reg MVEC(cos)(reg);
reg MVEC(tan)(reg);
reg MVEC(tanh)(reg);
reg MVEC(log1p)(reg);
reg MVEC(expm1)(reg);
}

using array_function = void (*)(const double*, double*, std::size_t);

// Applies a register function over an array; the last few elements (fewer than a register) by std::.
template <reg (*f)(reg), double (*scalar)(double)>
void over_registers(const double* in, double* out, std::size_t n) {
  std::size_t i = 0;
  for (; i + width <= n; i += width) store(out + i, f(load(in + i)));
  for (; i < n; ++i) out[i] = scalar(in[i]);
}

#define IMPLEMENTATIONS(fn)                                                                                        \
  double std_##fn(double x) { return std::fn(x); }                                                                 \
  void std_array_##fn(const double* in, double* out, std::size_t n) {                                              \
    for (std::size_t i = 0; i < n; ++i) out[i] = std::fn(in[i]);                                                   \
  }                                                                                                                \
  void eigen_##fn(const double* in, double* out, std::size_t n) {                                                  \
    Eigen::Map<Eigen::ArrayXd>(out, Eigen::Index(n)) = Eigen::Map<const Eigen::ArrayXd>(in, Eigen::Index(n)).fn(); \
  }                                                                                                                \
  reg xsimd_register_##fn(reg x) { return xsimd::fn(xsimd::make_sized_batch_t<double, width>(x)); }                \
  reg sleef_register_##fn(reg x) { return SLEEF(fn)(x); }                                                          \
  reg mvec_register_##fn(reg x) { return MVEC(fn)(x); }                                                            \
  long double exact_##fn(long double x) { return std::fn(x); }

IMPLEMENTATIONS(exp)
IMPLEMENTATIONS(log)
IMPLEMENTATIONS(sin)
IMPLEMENTATIONS(cos)
IMPLEMENTATIONS(tan)
IMPLEMENTATIONS(tanh)
IMPLEMENTATIONS(log1p)
IMPLEMENTATIONS(expm1)

constexpr int implementation_count = 5;
constexpr const char* implementation_names[implementation_count] = {"std", "eigen", "xsimd", "sleef", "libmvec"};

struct function_entry {
  const char* name;
  long double (*exact)(long double);
  array_function implementations[implementation_count];
  double typical_lo, typical_hi;  // the timed inputs, and the first accuracy range
  double whole_lo, whole_hi;      // the whole domain (log-uniform magnitudes where it spans decades)
};

#define ENTRY(fn, tl, th, wl, wh)                                                                           \
  function_entry {                                                                                          \
#fn, exact_##fn,                                                                                        \
        {std_array_##fn, eigen_##fn, over_registers < xsimd_register_##fn, std_##fn>,                       \
         over_registers < sleef_register_##fn, std_##fn>, over_registers < mvec_register_##fn, std_##fn> }, \
         tl, th, wl, wh                                                                                     \
  }

const function_entry functions[] = {
    ENTRY(exp, -10, 10, -745, 709),     ENTRY(log, 1e-3, 100, 0, 1e308),      ENTRY(sin, -10, 10, -1e300, 1e300),
    ENTRY(cos, -10, 10, -1e300, 1e300), ENTRY(tan, -1.5, 1.5, -1e300, 1e300), ENTRY(tanh, -5, 5, -1e300, 1e300),
    ENTRY(log1p, -0.9, 10, -1, 1e308),  ENTRY(expm1, -10, 10, -745, 709),
};

// n inputs over [lo, hi]: uniform when the range is narrow, otherwise magnitudes log-uniform from the
// smallest normal number, with the range's signs.
std::vector<double> inputs(double lo, double hi, std::size_t n, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::vector<double> x(n);
  const double top = std::log(std::max(std::abs(lo), std::abs(hi)));
  for (auto& v : x) {
    if (hi - lo <= 2000) {
      v = std::uniform_real_distribution<double>(lo, hi)(rng);
    } else {
      const double magnitude = std::exp(std::uniform_real_distribution<double>(std::log(2.3e-308), top)(rng));
      const bool negative = lo < 0 && (hi <= 0 || (rng() & 1));
      v = negative ? -std::min(magnitude, -lo) : std::min(magnitude, hi);
    }
    if (lo == -1 && v <= -1) v = std::nextafter(-1.0, 0.0);
  }
  return x;
}

double ulp_error(double got, long double exact) {
  const double rounded = static_cast<double>(exact);
  if (std::isnan(rounded)) return std::isnan(got) ? 0 : INFINITY;
  if (std::isinf(rounded)) return got == rounded ? 0 : INFINITY;
  if (!std::isfinite(got)) return INFINITY;
  const double ulp = std::nextafter(std::abs(rounded), INFINITY) - std::abs(rounded);
  return static_cast<double>(std::abs(static_cast<long double>(got) - exact) / ulp);
}

void print_accuracy() {
  std::printf("largest error in ULPs against long double, 2^20 inputs per range\n| function | inputs |");
  for (const char* name : implementation_names) std::printf(" %s |", name);
  std::printf("\n|---|---|");
  for (int k = 0; k < implementation_count; ++k) std::printf("---:|");
  std::printf("\n");
  constexpr std::size_t n = 1 << 20;
  for (const auto& f : functions) {
    for (const bool whole : {false, true}) {
      const double lo = whole ? f.whole_lo : f.typical_lo, hi = whole ? f.whole_hi : f.typical_hi;
      const auto x = inputs(lo, hi, n, 7);
      std::vector<double> y(n);
      std::printf("| %s | [%g, %g] |", f.name, lo, hi);
      for (const auto implementation : f.implementations) {
        implementation(x.data(), y.data(), n);
        double worst = 0;
        for (std::size_t i = 0; i < n; ++i) worst = std::max(worst, ulp_error(y[i], f.exact(x[i])));
        std::printf(" %.3g |", worst);
      }
      std::printf("\n");
    }
  }
}

void time_function(benchmark::State& state, array_function f, double lo, double hi) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const auto x = inputs(lo, hi, n, 3);
  std::vector<double> y(n);
  for (auto _ : state) {
    f(x.data(), y.data(), n);
    benchmark::DoNotOptimize(y.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

}  // namespace

int main(int argc, char** argv) {
  print_accuracy();
  for (const auto& f : functions)
    for (int k = 0; k < implementation_count; ++k)
      benchmark::RegisterBenchmark((std::string(f.name) + "/" + implementation_names[k]).c_str(), time_function,
                                   f.implementations[k], f.typical_lo, f.typical_hi)
          ->Arg(4096);
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
}
