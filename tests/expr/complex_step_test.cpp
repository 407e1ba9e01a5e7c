// expr/complex_step_test.cpp -- the complex step: imag(f(x + i h e_k)) / h is df/dx_k to rounding, against
// value_and_grad.
#include <complex>

#include <gtest/gtest.h>
#include <Eigen/Core>

#include <fusegrad/fusegrad.hpp>

namespace {

namespace fg = fusegrad;
using complex = std::complex<double>;

// B1 and a function with every kind of node: broadcasting, a reduction, a matrix product.
template <class X>
auto elementwise_chain(const X& x) {
  return fg::sum(fg::sin(x) * fg::exp(-x * x) + fg::log1p(x * x));
}
template <class X>
auto mixed(const X& x) {
  return fg::sum(fg::tanh(fg::matmul(x, fg::transpose(x))) / (1.5 + fg::mean(x * x, fg::axes<1>, fg::keepdims)));
}

// For each element k: x + i h e_k through eval on complex values; the imaginary part over h is
// df/dx_k with no subtractive cancellation, so it matches the real reverse sweep to ~1e-15.
template <class Shape, class F>
void expect_complex_step_matches(const Eigen::ArrayXd& values, F f) {
  fg::Var<double, Shape> x;
  x.value() = values;
  const auto [value, dx] = fg::value_and_grad(f(x), x);
  fg::Var<complex, Shape> xc;
  xc.value() = values.cast<complex>();
  const double h = 1e-20;
  for (Eigen::Index k = 0; k < values.size(); ++k) {
    xc.value()[k] += complex(0, h);
    const complex fk = fg::eval(f(xc));
    xc.value()[k] -= complex(0, h);
    EXPECT_NEAR(fk.real(), value, 1e-12 * std::max(1.0, std::abs(value)));
    EXPECT_NEAR(fk.imag() / h, dx[k], 1e-12) << "element " << k;
  }
}

TEST(ComplexStep, B1MatchesTheReverseSweep) {
  expect_complex_step_matches<fg::Shape<7>>(Eigen::ArrayXd::LinSpaced(7, -1.5, 2.0),
                                            [](const auto& x) { return elementwise_chain(x); });
}

TEST(ComplexStep, BroadcastReductionAndMatmulMatchTheReverseSweep) {
  expect_complex_step_matches<fg::Shape<3, 2>>(Eigen::ArrayXd::LinSpaced(6, -0.9, 1.1),
                                               [](const auto& x) { return mixed(x); });
}

}  // namespace
