// ops/matmul_shapes_test.cpp -- matmul beyond two matrices (vectors, dot products, batches that broadcast) and
// outer: against a plain triple loop, in every layer, with gradcheck and shape errors.
#include <random>
#include <span>
#include <type_traits>
#include <vector>

#include <gtest/gtest.h>
#include <Eigen/Core>

#include <fusegrad/fusegrad.hpp>

#include "support/expect_array.hpp"
#include "support/expect_error.hpp"
#include "support/gradcheck_layers.hpp"

namespace {

namespace fg = fusegrad;
using fg::Extents;
using fg::test::expect_array_near;

// The batched product of a (B_a, m, k) and b (B_b, k, n), B_a or B_b 1 (broadcast), by loops.
std::vector<double> loop_matmul(const std::vector<double>& a, std::size_t batch_a, const std::vector<double>& b,
                                std::size_t batch_b, std::size_t m, std::size_t k, std::size_t n) {
  const std::size_t batch = std::max(batch_a, batch_b);
  std::vector<double> y(batch * m * n, 0.0);
  for (std::size_t p = 0; p < batch; ++p)
    for (std::size_t i = 0; i < m; ++i)
      for (std::size_t j = 0; j < n; ++j)
        for (std::size_t l = 0; l < k; ++l)
          y[(p * m + i) * n + j] +=
              a[((batch_a == 1 ? 0 : p) * m + i) * k + l] * b[((batch_b == 1 ? 0 : p) * k + l) * n + j];
  return y;
}

template <fg::ShapeType S>
fg::Var<double, S> var_from(const std::vector<double>& values) {
  fg::Var<double, S> v;
  std::copy(values.begin(), values.end(), v.value().data());
  return v;
}

std::vector<double> iota(std::size_t n, double start, double step) {
  std::vector<double> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = start + step * double(i);
  return v;
}

// The value in the static layer and on the tape (fused node and fg::taped) against the loop.
template <class F, class A, class B>
void expect_value_in_every_layer(F f, const A& a, const B& b, const std::vector<double>& expected,
                                 const Extents& shape) {
  const auto evaluated = fg::eval(f(a, b));
  Eigen::ArrayXd static_value(1);
  if constexpr (std::is_arithmetic_v<decltype(evaluated)>)
    static_value[0] = evaluated;
  else
    static_value = evaluated;
  EXPECT_EQ(f(a, b).extents(), shape);
  ASSERT_EQ(std::size_t(static_value.size()), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) EXPECT_NEAR(static_value[Eigen::Index(i)], expected[i], 1e-12);
  const fg::Tensor ta = fg::test::tensor_of(a).requires_grad_(), tb = fg::test::tensor_of(b).requires_grad_();
  for (const fg::Tensor& t : {fg::Tensor(f(ta, tb)), fg::taped(f(ta, tb))}) {
    EXPECT_EQ(t.shape(), shape);
    for (std::size_t i = 0; i < expected.size(); ++i) EXPECT_NEAR(t.data()[i], expected[i], 1e-12);
  }
}

const auto product = [](const auto& a, const auto& b) { return fg::matmul(a, b); };

TEST(MatmulShapes, MatrixTimesVector) {
  const auto a = var_from<fg::Shape<2, 3>>(iota(6, 1, 1));
  const auto v = var_from<fg::Shape<3>>({1, -1, 2});
  expect_value_in_every_layer(product, a, v, {1 - 2 + 6, 4 - 5 + 12}, Extents{2});
  fg::test::expect_gradcheck_in_every_layer([](const auto& x, const auto& y) { return fg::sin(fg::matmul(x, y)); }, a,
                                            v);
}

TEST(MatmulShapes, VectorTimesMatrix) {
  const auto v = var_from<fg::Shape<2>>({2, -1});
  const auto b = var_from<fg::Shape<2, 3>>(iota(6, 1, 1));
  expect_value_in_every_layer(product, v, b, {2 - 4, 4 - 5, 6 - 6}, Extents{3});
  fg::test::expect_gradcheck_in_every_layer([](const auto& x, const auto& y) { return fg::exp(fg::matmul(x, y)); }, v,
                                            b);
}

// Two vectors: the dot product, a scalar; its gradients are the other vector.
TEST(MatmulShapes, VectorTimesVectorIsTheDotProduct) {
  const auto u = var_from<fg::Shape<3>>({1, 2, 3});
  const auto v = var_from<fg::Shape<3>>({4, -5, 6});
  expect_value_in_every_layer(product, u, v, {4 - 10 + 18}, Extents{});
  const auto [value, du, dv] = fg::value_and_grad(fg::matmul(u, v), u, v);
  EXPECT_EQ(value, 12);
  expect_array_near(du, {4, -5, 6});
  expect_array_near(dv, {1, 2, 3});
}

// (2, 3, 4) x (4, 2): the matrix is shared by both products of the batch; its gradient sums over them.
TEST(MatmulShapes, BatchTimesMatrixBroadcasts) {
  const auto a = var_from<fg::Shape<2, 3, 4>>(iota(24, -1, 0.125));
  const auto b = var_from<fg::Shape<4, 2>>(iota(8, 0.5, -0.25));
  expect_value_in_every_layer(product, a, b, loop_matmul(iota(24, -1, 0.125), 2, iota(8, 0.5, -0.25), 1, 3, 4, 2),
                              Extents{2, 3, 2});
  fg::test::expect_gradcheck_in_every_layer([](const auto& x, const auto& y) { return fg::tanh(fg::matmul(x, y)); }, a,
                                            b);
}

// (1, 2, 3) x (4, 3, 2): a batch of 1 broadcasts against 4, as in PyTorch.
TEST(MatmulShapes, BatchOfOneBroadcastsAgainstABatch) {
  const auto a = var_from<fg::Shape<1, 2, 3>>(iota(6, 1, -0.5));
  const auto b = var_from<fg::Shape<4, 3, 2>>(iota(24, -2, 0.2));
  expect_value_in_every_layer(product, a, b, loop_matmul(iota(6, 1, -0.5), 1, iota(24, -2, 0.2), 4, 2, 3, 2),
                              Extents{4, 2, 2});
  fg::test::expect_gradcheck_in_every_layer([](const auto& x, const auto& y) { return fg::square(fg::matmul(x, y)); },
                                            a, b);
}

// A batch of matrices times a vector: (2, 3, 4) x (4) -> (2, 3).
TEST(MatmulShapes, BatchTimesVector) {
  const auto a = var_from<fg::Shape<2, 3, 4>>(iota(24, 0.5, 0.1));
  const auto v = var_from<fg::Shape<4>>({1, 0, -1, 2});
  expect_value_in_every_layer(product, a, v, loop_matmul(iota(24, 0.5, 0.1), 2, {1, 0, -1, 2}, 1, 3, 4, 1),
                              Extents{2, 3});
  fg::test::expect_gradcheck_in_every_layer([](const auto& x, const auto& y) { return fg::matmul(x, y); }, a, v);
}

// A vector times a batch of matrices: (3) x (2, 3, 2) -> (2, 2); the vector's gradient sums over the batch.
TEST(MatmulShapes, VectorTimesBatch) {
  const auto v = var_from<fg::Shape<3>>({1, -2, 0.5});
  const auto b = var_from<fg::Shape<2, 3, 2>>(iota(12, -1, 0.25));
  expect_value_in_every_layer(product, v, b, loop_matmul({1, -2, 0.5}, 1, iota(12, -1, 0.25), 2, 1, 3, 2),
                              Extents{2, 2});
  fg::test::expect_gradcheck_in_every_layer([](const auto& x, const auto& y) { return fg::sin(fg::matmul(x, y)); }, v,
                                            b);
}

TEST(MatmulShapes, Outer) {
  const auto u = var_from<fg::Shape<2>>({1, -2});
  const auto v = var_from<fg::Shape<3>>({3, 4, 5});
  expect_value_in_every_layer([](const auto& a, const auto& b) { return fg::outer(a, b); }, u, v,
                              {3, 4, 5, -6, -8, -10}, Extents{2, 3});
  const auto [value, du, dv] = fg::value_and_grad(fg::sum(fg::outer(u, v)), u, v);
  EXPECT_EQ(value, -12);
  expect_array_near(du, {12, 12});
  expect_array_near(dv, {-1, -1, -1});
  fg::test::expect_gradcheck_in_every_layer([](const auto& a, const auto& b) { return fg::sin(fg::outer(a, b)); }, u,
                                            v);
}

TEST(MatmulShapeErrors, RunTimeMistakesAreShapeErrors) {
  const fg::Tensor batch2 = fg::Tensor::ones({2, 3, 4}), batch5 = fg::Tensor::ones({5, 4, 2});
  fg::test::expect_error<fg::shape_error>(
      [&] { (void)fg::Tensor(fg::matmul(batch2, batch5)); },
      {"fusegrad::matmul", "batch extents do not broadcast", "(2, 3, 4)", "(5, 4, 2)"});
  const fg::Tensor scalar = fg::Tensor::scalar(2.0), vector = fg::Tensor::ones({3});
  fg::test::expect_error<fg::shape_error>([&] { (void)fg::Tensor(fg::matmul(scalar, vector)); },
                                          {"fusegrad::matmul", "scalar", "()", "(3)"});
  fg::test::expect_error<fg::shape_error>([&] { (void)fg::Tensor(fg::matmul(vector, fg::Tensor::ones({4}))); },
                                          {"inner extents differ", "(3)", "(4)"});
  fg::test::expect_error<fg::shape_error>([&] { (void)fg::Tensor(fg::outer(batch2, vector)); },
                                          {"fusegrad::outer", "vectors", "(2, 3, 4)"});
}

}  // namespace
