// handwritten_simd/b5_mlp.cpp -- B5's hidden layer, tanh(W1 X + b1), written by hand as one loop that g++ vectorises
// with glibc's vector math library (libmvec), as handwritten_simd/b1_elementwise.cpp does: Eigen 3.4 evaluates tanh for
// double one element at a time. Its own object file: -ffast-math reaches nothing else.
#include <cmath>
#include <cstddef>

namespace fusegrad::bench {

// pre (rows x cols, row-major) becomes tanh(pre + bias), the bias one value per row.
void b5_bias_tanh_simd(double* pre, const double* bias, std::size_t rows, std::size_t cols) {
  for (std::size_t r = 0; r < rows; ++r) {
    double* row = pre + r * cols;
    const double b = bias[r];
#pragma omp simd
    for (std::size_t c = 0; c < cols; ++c) row[c] = std::tanh(row[c] + b);
  }
}

}  // namespace fusegrad::bench
