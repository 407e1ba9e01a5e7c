// handwritten_simd/b1_elementwise.cpp -- B1's value and gradient written by hand as one loop, compiled with -ffast-math
// so that g++ vectorises it with glibc's vector math library (libmvec): the fastest plain C++ a careful engineer gets
// from the toolchain alone. Its own object file: -ffast-math reaches nothing else.
#include <cmath>
#include <cstddef>

namespace fusegrad::bench {

double b1_handwritten_simd(const double* x, double* dx, std::size_t n) {
  double value = 0;
#pragma omp simd reduction(+ : value)
  for (std::size_t i = 0; i < n; ++i) {
    const double xi = x[i], s = std::sin(xi), e = std::exp(-xi * xi), q = xi * xi;
    value += s * e + std::log1p(q);
    dx[i] = std::cos(xi) * e - 2.0 * xi * s * e + 2.0 * xi / (1.0 + q);
  }
  return value;
}

}  // namespace fusegrad::bench
