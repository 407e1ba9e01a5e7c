// support/torch_figures.hpp -- expect_torch_figures: an op's value and gradient in every layer against PyTorch's.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <span>

#include <gtest/gtest.h>

#include <fusegrad/fusegrad.hpp>

namespace fusegrad::test {

/// `actual` (as many values as `expected`) against PyTorch's, to 1e-12 relative.
inline void expect_close(const double* actual, std::span<const double> expected, const char* what) {
  for (std::size_t i = 0; i < expected.size(); ++i)
    EXPECT_NEAR(actual[i], expected[i], 1e-12 * std::max(1.0, std::abs(expected[i]))) << what << ", element " << i;
}

/// f's value at x (2x3) and the gradient of sum(u * f(x)), in the static layer (a Var), recorded as one fused node,
/// and one node per op (fg::taped), all against PyTorch's (tests/data/*/make_reference.py).
template <class F, std::size_t N>
void expect_torch_figures(F f, const double (&x)[6], const double (&u)[N], const double (&value)[N],
                          const double (&grad)[6]) {
  Var<double, Shape<2, 3>> v;
  std::copy(x, x + 6, v.value().data());
  const Eigen::Array<double, Eigen::Dynamic, 1> upstream = Eigen::Map<const Eigen::ArrayXd>(u, N);
  const auto [y, dx] = vjp(f(v), upstream, v);
  ASSERT_EQ(static_cast<std::size_t>(y.size()), N);
  expect_close(y.data(), value, "static layer, value");
  expect_close(dx.data(), grad, "static layer, gradient");

  for (const bool per_op : {false, true}) {
    const char* layer = per_op ? "fg::taped" : "fused tape node";
    Tensor t = Tensor::from(std::span<const double>(x, 6), {2, 3}).requires_grad_();
    const Tensor result = per_op ? taped(f(t)) : Tensor(f(t));
    ASSERT_EQ(result.numel(), N) << layer;
    expect_close(result.data(), value, layer);
    result.backward(Tensor::from(std::span<const double>(u, N), result.shape()));
    expect_close(t.grad().data(), grad, layer);
  }
}

}  // namespace fusegrad::test
