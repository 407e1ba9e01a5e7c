// tape/bridge_cases.hpp -- the benchmark expressions over any leaves, and the typed fixture the bridge tests share.
#pragma once

#include <algorithm>
#include <cmath>
#include <numbers>
#include <random>
#include <string>
#include <type_traits>

#include <gtest/gtest.h>
#include <Eigen/Core>

#include <fusegrad/fusegrad.hpp>

namespace fusegrad::test {

// The benchmark expressions, written once over any leaves: Tensors (recorded) or Vars (static).
// B1: f = sum(sin(x) exp(-x^2) + log1p(x^2))
template <class X>
auto b1(const X& x) {
  return sum(sin(x) * exp(-x * x) + log1p(x * x));
}
// B2: L = mean((b + w x - y)^2)
template <class B, class W, class X, class Y>
auto b2(const B& b, const W& w, const X& x, const Y& y) {
  return mean(square(b + w * x - y));
}
// B3: f = sum(-0.5 ((y - mu) / sigma)^2 - log(sigma) - 0.5 log(2 pi))
template <class Y, class M, class S>
auto b3(const Y& y, const M& mu, const S& sigma) {
  return sum(-0.5 * square((y - mu) / sigma) - log(sigma) - 0.5 * std::log(2 * std::numbers::pi));
}
// B5-like: L = mean((W2 tanh(W1 X + b1) + b2 - Y)^2)
template <class W1, class X, class B1, class W2, class B2, class Y>
auto mlp(const W1& w1, const X& x, const B1& bias1, const W2& w2, const B2& bias2, const Y& y) {
  return mean(square(matmul(w2, tanh(matmul(w1, x) + bias1)) + bias2 - y));
}

// Their values and gradients by hand, in double, from inputs already rounded to the scalar type under test.
struct b1_figures {
  double value;
  Eigen::ArrayXd dx;
};
inline b1_figures b1_by_hand(const Eigen::ArrayXd& xs) {
  const Eigen::ArrayXd e = (-xs.square()).exp();
  return {(xs.sin() * e + xs.square().log1p()).sum(),
          xs.cos() * e - 2 * xs * xs.sin() * e + 2 * xs / (1 + xs.square())};
}
// r = b + w x - y: L = mean(r^2), dL/db = 2 mean(r), dL/dw = 2 mean(r x).
struct b2_figures {
  double value, db, dw;
};
inline b2_figures b2_by_hand(double b, double w, const Eigen::ArrayXd& xs, const Eigen::ArrayXd& ys) {
  const Eigen::ArrayXd r = b + w * xs - ys;
  return {r.square().mean(), 2 * r.mean(), 2 * (r * xs).mean()};
}
// df/dmu = sum(y - mu) / sigma^2,  df/dsigma = sum((y - mu)^2) / sigma^3 - N / sigma.
struct b3_figures {
  double value, dmu, dsigma;
};
inline b3_figures b3_by_hand(const Eigen::ArrayXd& ys, double mu, double sigma) {
  return {(-0.5 * ((ys - mu) / sigma).square() - std::log(sigma) - 0.5 * std::log(2 * std::numbers::pi)).sum(),
          (ys - mu).sum() / (sigma * sigma),
          (ys - mu).square().sum() / (sigma * sigma * sigma) - double(ys.size()) / sigma};
}
// The MLP on X (3,5), W1 (4,3), b1 (4,1), W2 (1,4), b2 (), Y (1,5), every matrix row-major, backpropagated by hand:
//   Z = W1 X + b1, H = tanh Z, R = W2 H + b2 - Y, L = sum(R^2) / 5,
//   dR = 2R / 5, dW2 = dR H^T, db2 = sum dR, dZ = (W2^T dR) (1 - H^2), dW1 = dZ X^T, db1 = row sums of dZ.
struct mlp_figures {
  double loss;
  Eigen::ArrayXd dw1, db1, dw2;  // row-major
  double db2;
};
inline mlp_figures mlp_by_hand(const Eigen::ArrayXd& xs, const Eigen::ArrayXd& w1s, const Eigen::ArrayXd& b1s,
                               const Eigen::ArrayXd& w2s, double b2, const Eigen::ArrayXd& ys) {
  using RowMajor = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  const auto mat = [](const Eigen::ArrayXd& v, int r, int c) { return RowMajor(RowMajor::Map(v.data(), r, c)); };
  const auto flat = [](const auto& m) { return Eigen::ArrayXd(RowMajor(m).template reshaped<Eigen::RowMajor>()); };
  const RowMajor X = mat(xs, 3, 5), Y = mat(ys, 1, 5), W1 = mat(w1s, 4, 3), W2 = mat(w2s, 1, 4);
  const RowMajor Z = (W1 * X).colwise() + b1s.matrix();
  const RowMajor H = Z.array().tanh().matrix();
  const RowMajor R = (W2 * H).array() + b2 - Y.array();
  const RowMajor dR = 2 * R / 5;
  const RowMajor dZ = ((W2.transpose() * dR).array() * (1 - H.array().square())).matrix();
  return {R.array().square().sum() / 5, flat(dZ * X.transpose()), flat(dZ.rowwise().sum()), flat(dR * H.transpose()),
          dR.sum()};
}

/// The typed fixture of the bridge tests: inputs rounded to T, parameters, tolerances.
template <class T>
class Bridge : public ::testing::Test {
 protected:
  using Tensor = BasicTensor<T>;
  static constexpr bool single = std::is_same_v<T, float>;
  // fused against taped: the same derivatives, in a different order of rounding
  static constexpr double same = single ? 2e-5 : 1e-12;
  // against closed forms computed in double from the same (T-rounded) inputs
  static constexpr double closed = single ? 2e-5 : 1e-12;
  // the static layer against the fused node: the same sweep
  static constexpr double identical = single ? 1e-6 : 1e-14;

  /// n values uniform in [lo, hi), rounded to T (so that double references see the same inputs).
  static Eigen::ArrayXd values(Eigen::Index n, double lo, double hi, unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> dist(lo, hi);
    Eigen::ArrayXd out(n);
    for (auto& v : out) v = double(T(dist(rng)));
    return out;
  }
  static Tensor param(const Eigen::ArrayXd& v, const Extents& e) { return Tensor::from(v, e).requires_grad_(); }
  static Tensor param(double v) { return Tensor::scalar(T(v)).requires_grad_(); }
  static Eigen::ArrayXd grad_of(const Tensor& t) { return t.grad().eigen().template cast<double>(); }
  static Eigen::ArrayXd scalar(double v) { return Eigen::ArrayXd::Constant(1, v); }
  static void expect_value(const Tensor& t, double expected, double tolerance, const std::string& what) {
    EXPECT_NEAR(double(t.item()), expected, tolerance * std::max(1.0, std::abs(expected))) << what;
  }
};

}  // namespace fusegrad::test
