// expr/vjp_test.cpp -- vjp(f, upstream, vars...): the gradient of sum(upstream * f) for non-scalar f.
#include <gtest/gtest.h>
#include <Eigen/Core>

#include <fusegrad/fusegrad.hpp>

#include "support/expect_array.hpp"
#include "support/expect_error.hpp"

namespace {

namespace fg = fusegrad;
using fg::test::expect_array_near;

// f = x * y with x (3,1), y (1,4): f_ij = x_i y_j. With upstream U (3,4, row-major):
//   dx_i = sum_j U_ij y_j,  dy_j = sum_i U_ij x_i.
TEST(Vjp, ExplicitUpstreamOnABroadcastProduct) {
  fg::Var<double, fg::Shape<3, 1>> x{1.0, 2.0, 3.0};
  fg::Var<double, fg::Shape<1, 4>> y{1.0, 10.0, 100.0, 1000.0};
  Eigen::ArrayXd u(12);
  u << 1, 0, 0, 0,  //
      0, 1, 0, 0,   //
      0, 0, 1, 2;
  const auto [value, dx, dy] = fg::vjp(x * y, u, x, y);
  expect_array_near(value, {1, 10, 100, 1000, 2, 20, 200, 2000, 3, 30, 300, 3000});
  expect_array_near(dx, {1, 10, 100 + 2 * 1000});
  expect_array_near(dy, {1, 2, 3, 6});
}

// An upstream of one value is broadcast: vjp(f, 2, x) is the gradient of 2 sum(f).
TEST(Vjp, AScalarUpstreamIsBroadcast) {
  fg::Var<double, fg::Shape<3>> x{1.0, 2.0, 3.0};
  const auto [value, dx] = fg::vjp(x * x, 2.0, x);
  expect_array_near(value, {1, 4, 9});
  expect_array_near(dx, {4, 8, 12});
  Eigen::ArrayXd one(1);
  one << 2.0;
  const auto [value1, dx1] = fg::vjp(x * x, one, x);
  expect_array_near(dx1, {4, 8, 12});
}

// vjp through a materialised node: f = matmul(W, v) with W (2,3), v (3,1); dW = U v^T, dv = W^T U.
TEST(Vjp, ThroughAMatrixProduct) {
  fg::Var<double, fg::Shape<2, 3>> w{1.0, 2.0, 3.0, 4.0, 5.0, 6.0};
  fg::Var<double, fg::Shape<3, 1>> v{1.0, -1.0, 2.0};
  Eigen::ArrayXd u(2);
  u << 1.0, 10.0;
  const auto [value, dw, dv] = fg::vjp(fg::matmul(w, v), u, w, v);
  expect_array_near(value, {1 - 2 + 6, 4 - 5 + 12});
  expect_array_near(dw, {1, -1, 2, 10, -10, 20});
  expect_array_near(dv, {41, 52, 63});
}

// An upstream of the wrong size is a shape_error naming the expression's shape.
TEST(Vjp, AnUpstreamOfTheWrongSizeThrows) {
  fg::Var<double, fg::Shape<2, 3>> x;
  const Eigen::ArrayXd u = Eigen::ArrayXd::Ones(5);
  fg::test::expect_error<fg::shape_error>([&] { (void)fg::vjp(x * 2.0, u, x); },
                                          {"fusegrad::vjp", "5 elements", "f has shape (2, 3)"});
}

// A 2-D upstream has rank 2 (the rule for Eigen input): read row-major when it has f's shape, refused otherwise. A
// vector is f's values flat.
TEST(Vjp, AMatrixUpstreamIsReadRowMajor) {
  fg::Var<double, fg::Shape<fg::dyn, fg::dyn>> x(fg::Extents{2, 3}, {1, 2, 3, 4, 5, 6});
  Eigen::Array<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> row_major(2, 3);
  row_major << 1, 2, 3, 4, 5, 6;
  const Eigen::ArrayXXd column_major = row_major;
  for (const auto& dx : {std::get<1>(fg::vjp(x * 2.0, row_major, x)), std::get<1>(fg::vjp(x * 2.0, column_major, x)),
                         std::get<1>(fg::vjp(x * 2.0, Eigen::ArrayXd::LinSpaced(6, 1, 6).eval(), x))})
    expect_array_near(dx, {2, 4, 6, 8, 10, 12});
  fg::Var<double, fg::Shape<2, 3>> fixed;
  const Eigen::Array<double, 2, 3, Eigen::RowMajor> ones = Eigen::Array<double, 2, 3, Eigen::RowMajor>::Ones();
  expect_array_near(std::get<1>(fg::vjp(fixed * 3.0, ones, fixed)), {3, 3, 3, 3, 3, 3});
  fg::test::expect_error<fg::shape_error>([&] { (void)fg::vjp(x * 2.0, Eigen::ArrayXXd::Ones(3, 2).eval(), x); },
                                          {"upstream has shape (3, 2)", "f has shape (2, 3)"});
}

// vjp of a scalar expression with upstream 1 is value_and_grad.
TEST(Vjp, OnAScalarExpressionMatchesValueAndGrad) {
  fg::Var<double, fg::Shape<4>> x{0.5, 1.0, 1.5, 2.0};
  const auto f = fg::sum(fg::sin(x) * x);
  const auto [v1, g1] = fg::value_and_grad(f, x);
  const auto [v2, g2] = fg::vjp(f, 1.0, x);
  expect_array_near(v2, {v1});
  for (Eigen::Index i = 0; i < 4; ++i) EXPECT_DOUBLE_EQ(g2[i], g1[i]);
}

}  // namespace
