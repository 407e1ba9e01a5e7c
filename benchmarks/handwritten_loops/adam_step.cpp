// handwritten_loops/adam_step.cpp -- O1's one-pass Adam update, as a careful engineer writes it: one loop, the bias
// corrections hoisted. Its own object file, compiled with -fno-math-errno: nothing reads errno, and glibc's sqrt
// would otherwise have to set it, so the compiler could not vectorise the loop. Strict arithmetic otherwise, so the
// result is the same, bit for bit, as the same loop compiled without it.
#include <cmath>
#include <cstddef>

namespace fusegrad::bench {

void adam_loop(double* p, double* m, double* v, const double* g, std::size_t n, double beta1, double beta2, double eps,
               double step_size, double correction2_sqrt) {
#pragma omp simd
  for (std::size_t i = 0; i < n; ++i) {
    m[i] = beta1 * m[i] + (1 - beta1) * g[i];
    v[i] = beta2 * v[i] + (1 - beta2) * g[i] * g[i];
    p[i] -= step_size * m[i] / (std::sqrt(v[i]) / correction2_sqrt + eps);
  }
}

}  // namespace fusegrad::bench
