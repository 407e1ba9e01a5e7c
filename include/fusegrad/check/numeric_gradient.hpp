// check/numeric_gradient.hpp -- gradients that do not come from fusegrad's VJPs: central differences and the
// complex step, of any function of values it can move in place.
#pragma once

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstddef>
#include <string>
#include <vector>

#include <fusegrad/detail/number_text.hpp>
#include <fusegrad/error.hpp>

namespace fusegrad::detail {

// The derivatives of `value()` with respect to each of the n values at `x` by central
// differences, into `out`: each value is moved by +-h (then restored) and value() called again.
// The quotient divides by the step actually taken, (x + h) - (x - h) after rounding; a step that rounds away (an eps
// too small for x) is a value_error.
template <class Value>
void central_differences(double* x, std::size_t n, double eps, Value&& value, std::vector<double>& out) {
  if (!(std::isfinite(eps) && eps > 0))
    throw value_error("fusegrad::gradcheck: eps must be a number > 0, not " + number_text(eps) +
                      " (GradcheckOptions{.eps = 1e-5}, the default)");
  out.resize(n);
  for (std::size_t j = 0; j < n; ++j) {
    const double x0 = x[j], h = eps * std::max(1.0, std::abs(x0));
    const double above = x0 + h, below = x0 - h;
    if (above == below && std::isfinite(x0))
      throw value_error("fusegrad::gradcheck: eps = " + number_text(eps) + " moves the value " + number_text(x0) +
                        " by less than its rounding; take a larger eps (1e-5, the default)");
    x[j] = above;
    const double up = value();
    x[j] = below;
    const double down = value();
    x[j] = x0;
    out[j] = (up - down) / (above - below);
  }
}

// The complex step: f(x + ih) = f(x) + ih f'(x) + O(h^2), so Im f(x + ih) / h is f'(x) to
// rounding for any h small enough; no subtraction, no cancellation.
inline constexpr double complex_step_h = 1e-20;

template <class Value>
void complex_steps(std::complex<double>* x, std::size_t n, Value&& value, std::vector<double>& out) {
  out.resize(n);
  for (std::size_t j = 0; j < n; ++j) {
    const std::complex<double> x0 = x[j];
    x[j] = {x0.real(), complex_step_h};
    out[j] = value().imag() / complex_step_h;
    x[j] = x0;
  }
}

}  // namespace fusegrad::detail
