// expr/closed_form_test.cpp -- the benchmark expressions B1-B4 against their analytic gradients, repeated vars, a deep
// chain, a materialised node in each access mode.
#include <cmath>
#include <cstddef>
#include <numbers>
#include <random>

#include <gtest/gtest.h>
#include <Eigen/Core>

#include <fusegrad/fusegrad.hpp>

#include "support/finite_difference.hpp"

namespace {

namespace fg = fusegrad;
using fg::Extents;

Eigen::ArrayXd random_values(Eigen::Index n, double lo, double hi, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> dist(lo, hi);
  Eigen::ArrayXd out(n);
  for (auto& v : out) v = dist(rng);
  return out;
}

// A matrix leaf (Var or Const of shape (dyn, dyn)) of values drawn from [-2, 2].
template <class Leaf>
Leaf random_matrix(std::size_t rows, std::size_t cols, unsigned seed) {
  Leaf x(Extents{rows, cols});
  x.value() = random_values(Eigen::Index(rows * cols), -2, 2, seed);
  return x;
}

// B1: f = sum(sin(x) exp(-x^2) + log1p(x^2));
//     df/dx = cos(x) exp(-x^2) - 2x sin(x) exp(-x^2) + 2x / (1 + x^2).
template <class X>
auto b1(const X& x) {
  return fg::sum(fg::sin(x) * fg::exp(-x * x) + fg::log1p(x * x));
}

TEST(ClosedForm, B1ElementwiseChain) {
  const Eigen::ArrayXd values = random_values(1000, -2, 2, 1);
  fg::Var<double, fg::Shape<fg::dyn>> x(values);
  const auto [value, dx] = fg::value_and_grad(b1(x), x);
  const Eigen::ArrayXd e = (-values.square()).exp();
  EXPECT_NEAR(value, (values.sin() * e + values.square().log1p()).sum(), 1e-10);
  const Eigen::ArrayXd expected = values.cos() * e - 2 * values * values.sin() * e + 2 * values / (1 + values.square());
  ASSERT_EQ(dx.size(), 1000);
  for (Eigen::Index i = 0; i < 1000; ++i) EXPECT_NEAR(dx[i], expected[i], 1e-14) << "at x = " << values[i];
}

// B1 on a static Shape<16> gives the same numbers as on Shape<dyn>.
TEST(ClosedForm, B1StaticAndDynamicAgree) {
  const Eigen::ArrayXd values = random_values(16, -2, 2, 2);
  fg::Var<double, fg::Shape<16>> xs(values);
  fg::Var<double, fg::Shape<fg::dyn>> xd(values);
  const auto [vs, gs] = fg::value_and_grad(b1(xs), xs);
  const auto [vd, gd] = fg::value_and_grad(b1(xd), xd);
  EXPECT_NEAR(vs, vd, 1e-14);
  for (Eigen::Index i = 0; i < 16; ++i) EXPECT_NEAR(gs[i], gd[i], 1e-15);
}

// B2: L = mean((b + w x - y)^2) with scalar vars b, w and data x, y (Consts):
//     r = b + w x - y, dL/db = 2 mean(r), dL/dw = 2 mean(r x).
TEST(ClosedForm, B2LinearRegressionMse) {
  const Eigen::ArrayXd xs = random_values(80, -1, 1, 3);
  const Eigen::ArrayXd ys = 3 * xs + 0.5 + random_values(80, -0.1, 0.1, 4);
  fg::Var<double, fg::Shape<>> b(0.25), w(1.5);
  fg::Const<double, fg::Shape<fg::dyn>> x(xs), y(ys);
  const auto [loss, db, dw] = fg::value_and_grad(fg::mean(fg::square(b + w * x - y)), b, w);
  const Eigen::ArrayXd r = 0.25 + 1.5 * xs - ys;
  EXPECT_NEAR(loss, r.square().mean(), 1e-14);
  EXPECT_NEAR(db, 2 * r.mean(), 1e-14);
  EXPECT_NEAR(dw, 2 * (r * xs).mean(), 1e-14);
  // The same loss written with pow(r, 2) has the same gradient.
  const auto [loss2, db2, dw2] = fg::value_and_grad(fg::mean(fg::pow(b + w * x - y, 2.0)), b, w);
  EXPECT_NEAR(loss2, loss, 1e-14);
  EXPECT_NEAR(db2, db, 1e-14);
  EXPECT_NEAR(dw2, dw, 1e-14);
}

// B3: f = sum(-0.5 ((y - mu) / sigma)^2 - log(sigma) - 0.5 log(2 pi)) over N samples y:
//     df/dmu = sum(y - mu) / sigma^2,  df/dsigma = sum((y - mu)^2) / sigma^3 - N / sigma.
TEST(ClosedForm, B3NormalLogDensity) {
  const Eigen::ArrayXd ys = 1.0 + 2.0 * random_values(100, -1, 1, 5);
  const double m = 0.8, s = 1.7;
  fg::Var<double, fg::Shape<>> mu(m), sigma(s);
  fg::Const<double, fg::Shape<fg::dyn>> y(ys);
  const auto f = fg::sum(-0.5 * fg::square((y - mu) / sigma) - fg::log(sigma) - 0.5 * std::log(2 * std::numbers::pi));
  const auto [value, dmu, dsigma] = fg::value_and_grad(f, mu, sigma);
  const Eigen::ArrayXd d = ys - m;
  EXPECT_NEAR(value, (-0.5 * (d / s).square() - std::log(s) - 0.5 * std::log(2 * std::numbers::pi)).sum(), 1e-12);
  EXPECT_NEAR(dmu, d.sum() / (s * s), 1e-12);
  EXPECT_NEAR(dsigma, d.square().sum() / (s * s * s) - 100 / s, 1e-12);
}

// B4: f = x y + sin(x) exp(z) - y / z on scalars:
//     df/dx = y + cos(x) exp(z), df/dy = x - 1/z, df/dz = sin(x) exp(z) + y / z^2.
TEST(ClosedForm, B4TinyScalarExpression) {
  const double xv = 0.7, yv = -1.3, zv = 2.1;
  fg::Var<double, fg::Shape<>> x(xv), y(yv), z(zv);
  const auto [value, dx, dy, dz] = fg::value_and_grad(x * y + fg::sin(x) * fg::exp(z) - y / z, x, y, z);
  EXPECT_NEAR(value, xv * yv + std::sin(xv) * std::exp(zv) - yv / zv, 1e-14);
  EXPECT_NEAR(dx, yv + std::cos(xv) * std::exp(zv), 1e-14);
  EXPECT_NEAR(dy, xv - 1 / zv, 1e-14);
  EXPECT_NEAR(dz, std::sin(xv) * std::exp(zv) + yv / (zv * zv), 1e-14);
  // grad with several vars returns the same gradients, without the value.
  const auto [gx, gy, gz] = fg::grad(x * y + fg::sin(x) * fg::exp(z) - y / z, x, y, z);
  EXPECT_EQ(gx, dx);
  EXPECT_EQ(gy, dy);
  EXPECT_EQ(gz, dz);
}

// A var used several times gets the sum of every use's contribution: d/dx sum(x^3 + 2x) = 3x^2 + 2.
TEST(ClosedForm, AVarUsedSeveralTimesGetsEveryContribution) {
  fg::Var<double, fg::Shape<3>> x{1.0, -2.0, 0.5};
  const auto dx = fg::grad(fg::sum(x * x * x + 2.0 * x), x);
  EXPECT_DOUBLE_EQ(dx[0], 5.0);
  EXPECT_DOUBLE_EQ(dx[1], 14.0);
  EXPECT_DOUBLE_EQ(dx[2], 2.75);
}

// Uses on both sides of a materialised node (two segments): f = sum(x * mean(x)) = n mean(x)^2,
// df/dx_i = 2 mean(x).
TEST(ClosedForm, AVarUsedInsideAndOutsideAReduction) {
  fg::Var<double, fg::Shape<4>> x{1.0, 2.0, 3.0, 6.0};
  const auto [value, dx] = fg::value_and_grad(fg::sum(x * fg::mean(x)), x);
  EXPECT_DOUBLE_EQ(value, 4 * 3.0 * 3.0);
  for (Eigen::Index i = 0; i < 4; ++i) EXPECT_DOUBLE_EQ(dx[i], 6.0);
}

// A materialised node's gradient in each way its parent segment reads the node: as large as the segment (stream),
// repeated along an axis (broadcast), one value (repeat); each twice, so that the second call's buffers may come back
// holding the first call's numbers; and below a comparison, where it gets no gradient. With A B the product, C data
// and 1 a column of ones:
//   sum((A B) * C):     dA = C Bᵀ,                dB = Aᵀ C;
//   sum((A u) * C):     dA = (C 1) uᵀ,            du = Aᵀ (C 1);
//   sum((v u) * C):     dv = sum(C) uᵀ,           du = sum(C) vᵀ.
TEST(ClosedForm, AMaterialisedNodeGetsItsGradientInEveryAccessMode) {
  using RowMajor = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  const auto matrix = [](const auto& array, Eigen::Index rows, Eigen::Index cols) {
    return RowMajor(Eigen::Map<const RowMajor>(array.data(), rows, cols));
  };
  using Var = fg::Var<double, fg::Shape<fg::dyn, fg::dyn>>;
  using Data = fg::Const<double, fg::Shape<fg::dyn, fg::dyn>>;
  const auto a = random_matrix<Var>(6, 2, 10), b = random_matrix<Var>(2, 5, 11), u = random_matrix<Var>(2, 1, 12),
             v = random_matrix<Var>(1, 2, 13);
  const auto c_stream = random_matrix<Data>(6, 5, 14), c_broadcast = random_matrix<Data>(6, 3, 15),
             c_repeat = random_matrix<Data>(4, 3, 16);
  const RowMajor A = matrix(a.value(), 6, 2), B = matrix(b.value(), 2, 5), U = matrix(u.value(), 2, 1),
                 V = matrix(v.value(), 1, 2), C = matrix(c_stream.value(), 6, 5);
  const Eigen::VectorXd row_sums = matrix(c_broadcast.value(), 6, 3).rowwise().sum();
  const double repeat_sum = c_repeat.value().sum();
  for (int call = 0; call < 2; ++call) {
    const auto [stream, da, db] = fg::value_and_grad(fg::sum(fg::matmul(a, b) * c_stream), a, b);
    EXPECT_NEAR(stream, (A * B).cwiseProduct(C).sum(), 1e-12);
    EXPECT_TRUE(matrix(da, 6, 2).isApprox(C * B.transpose(), 1e-14)) << "call " << call;
    EXPECT_TRUE(matrix(db, 2, 5).isApprox(A.transpose() * C, 1e-14)) << "call " << call;

    const auto [broadcast, da2, du] = fg::value_and_grad(fg::sum(fg::matmul(a, u) * c_broadcast), a, u);
    EXPECT_NEAR(broadcast, (A * U).col(0).dot(row_sums), 1e-12);
    EXPECT_TRUE(matrix(da2, 6, 2).isApprox(row_sums * U.transpose(), 1e-14)) << "call " << call;
    EXPECT_TRUE(matrix(du, 2, 1).isApprox(A.transpose() * row_sums, 1e-14)) << "call " << call;

    const auto [repeat, dv, du2] = fg::value_and_grad(fg::sum(fg::matmul(v, u) * c_repeat), v, u);
    EXPECT_NEAR(repeat, (V * U)(0, 0) * repeat_sum, 1e-12);
    EXPECT_TRUE(matrix(dv, 1, 2).isApprox(repeat_sum * U.transpose(), 1e-14)) << "call " << call;
    EXPECT_TRUE(matrix(du2, 2, 1).isApprox(repeat_sum * V.transpose(), 1e-14)) << "call " << call;

    // Below a comparison the node gets no gradient, and its operands none through it: sum(w) alone gives dw = 1.
    const auto [cut_stream, da3, db3] =
        fg::value_and_grad(fg::sum((fg::matmul(a, b) > 0.0) * c_stream) + fg::sum(b), a, b);
    EXPECT_TRUE(da3.isZero(0.0)) << "call " << call;
    EXPECT_TRUE(db3.isOnes(0.0)) << "call " << call;
    const auto [cut_broadcast, da4, du4] =
        fg::value_and_grad(fg::sum((fg::matmul(a, u) > 0.0) * c_broadcast) + fg::sum(u), a, u);
    EXPECT_TRUE(da4.isZero(0.0)) << "call " << call;
    EXPECT_TRUE(du4.isOnes(0.0)) << "call " << call;
    const auto [cut_repeat, dv5, du5] =
        fg::value_and_grad(fg::sum((fg::matmul(v, u) > 0.0) * c_repeat) + fg::sum(v), v, u);
    EXPECT_TRUE(dv5.isOnes(0.0)) << "call " << call;
    EXPECT_TRUE(du5.isZero(0.0)) << "call " << call;
  }
}

// A var named twice gets its full gradient twice (not the gradient once and zeros once):
// f = sum(x^2) + s * s, df/dx = 2x, df/ds = 2s.
TEST(ClosedForm, AVarNamedTwiceGetsItsGradientTwice) {
  fg::Var<double, fg::Shape<2>> x{1.5, -2.0};
  fg::Var<double, fg::Shape<>> s(3.0);
  const auto f = fg::sum(x * x) + s * s;
  const auto [value, dx1, ds1, dx2, ds2] = fg::value_and_grad(f, x, s, x, s);
  EXPECT_DOUBLE_EQ(value, 2.25 + 4.0 + 9.0);
  EXPECT_DOUBLE_EQ(ds1, 6.0);
  EXPECT_DOUBLE_EQ(ds2, 6.0);
  for (const auto& dx : {dx1, dx2}) {
    EXPECT_DOUBLE_EQ(dx[0], 3.0);
    EXPECT_DOUBLE_EQ(dx[1], -4.0);
  }
  fg::Var<double, fg::Shape<fg::dyn>> v({3}, {1.0, 2.0, 3.0});  // dynamic storage: copied, not moved twice
  const auto [dv1, dv2] = fg::grad(fg::sum(fg::exp(v)), v, v);
  for (Eigen::Index i = 0; i < 3; ++i) {
    EXPECT_DOUBLE_EQ(dv1[i], std::exp(double(i + 1)));
    EXPECT_DOUBLE_EQ(dv2[i], std::exp(double(i + 1)));
  }
}

// A var that is not in the expression gets a zero gradient of its own shape.
TEST(ClosedForm, AnUnusedVarGetsZeros) {
  fg::Var<double, fg::Shape<2>> x{1.0, 2.0};
  fg::Var<double, fg::Shape<3>> unused{1.0, 2.0, 3.0};
  const auto [value, dx, du] = fg::value_and_grad(fg::sum(x * x), x, unused);
  EXPECT_EQ(value, 5.0);
  EXPECT_EQ(dx[1], 4.0);
  ASSERT_EQ(du.size(), 3);
  EXPECT_TRUE((du == 0).all());
}

// tanh nested K times around x.
template <int K, class X>
auto nested_tanh(X&& x) {
  if constexpr (K == 1) {
    return fg::tanh(std::forward<X>(x));
  } else {
    return fg::tanh(nested_tanh<K - 1>(std::forward<X>(x)));
  }
}

// y_0 = x, y_k = tanh(y_{k-1}); dy_30/dx = prod_k (1 - y_k^2).
TEST(ClosedForm, ThirtyNestedTanh) {
  const Eigen::ArrayXd values = random_values(1000, -3, 3, 6);
  fg::Var<double, fg::Shape<fg::dyn>> x(values);
  const auto [value, dx] = fg::value_and_grad(fg::sum(nested_tanh<30>(x)), x);
  Eigen::ArrayXd y = values, derivative = Eigen::ArrayXd::Ones(1000);
  for (int k = 0; k < 30; ++k) {
    y = y.tanh();
    derivative *= 1 - y.square();
  }
  EXPECT_NEAR(value, y.sum(), 1e-10);
  for (Eigen::Index i = 0; i < 1000; ++i) EXPECT_NEAR(dx[i], derivative[i], 1e-14) << "at x = " << values[i];
}

// The chain on a static shape, against central differences.
TEST(ClosedForm, ThirtyNestedTanhStaticMatchesFiniteDifferences) {
  fg::Var<double, fg::Shape<8>> x(random_values(8, -1, 1, 7));
  fg::test::expect_gradients_match_fd([](auto& v) { return nested_tanh<30>(v); }, x);
}

// An expression stored with auto keeps its temporaries by value, so it outlives the line that built it.
TEST(ClosedForm, AStoredExpressionDoesNotDangle) {
  fg::Var<double, fg::Shape<2>> x{1.0, 2.0};
  const auto f = fg::sum(fg::exp(x * 2.0) + 1.0);  // temporaries held by value, x by reference
  x.value()[0] = 0.0;                              // the expression sees later changes to x
  const auto [value, dx] = fg::value_and_grad(f, x);
  EXPECT_DOUBLE_EQ(value, 1.0 + std::exp(4.0) + 2.0);
  EXPECT_DOUBLE_EQ(dx[0], 2.0);
  EXPECT_DOUBLE_EQ(dx[1], 2 * std::exp(4.0));
}

}  // namespace
