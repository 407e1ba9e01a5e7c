// shape/eigen_extents_test.cpp -- the one rule for Eigen input: a vector type is rank 1, every other matrix or
// array rank 2 (rows, cols), values read row-major; Var, Const and Tensor::from follow it alike.
#include <gtest/gtest.h>

#include <Eigen/Core>

#include <fusegrad/fusegrad.hpp>

#include "support/expect_error.hpp"

namespace {

namespace fg = fusegrad;
using fg::dyn;
using fg::Extents;
using fg::Shape;

template <class Leaf>
std::vector<double> values_of(const Leaf& leaf) {
  return {leaf.data(), leaf.data() + leaf.extents().size()};
}
std::vector<double> values_of(const fg::Tensor& t) { return {t.data(), t.data() + t.numel()}; }

TEST(EigenExtents, VectorTypesAreRankOne) {
  Eigen::VectorXd column(3);
  column << 1, 2, 3;
  Eigen::RowVectorXd row(2);
  row << 4, 5;
  EXPECT_EQ(fg::eigen_extents(column), Extents{3});
  EXPECT_EQ(fg::eigen_extents(row), Extents{2});
  EXPECT_EQ(fg::eigen_extents(Eigen::Array3d(1, 2, 3)), Extents{3});

  const fg::Var<double, Shape<dyn>> x(row);
  const fg::Tensor t = fg::Tensor::from(row);
  EXPECT_EQ(x.extents(), Extents{2});
  EXPECT_EQ(t.shape(), Extents{2});
  EXPECT_EQ(values_of(x), (std::vector<double>{4, 5}));
  EXPECT_EQ(values_of(t), (std::vector<double>{4, 5}));
}

// A 1x3 or 3x1 matrix stays two-dimensional, as a NumPy array of that shape does in PyTorch.
TEST(EigenExtents, MatricesAreRankTwoEvenWithOneRowOrColumn) {
  Eigen::MatrixXd one_row(1, 3);
  one_row << 1, 2, 3;
  Eigen::MatrixXd one_column(3, 1);
  one_column << 1, 2, 3;
  EXPECT_EQ(fg::eigen_extents(one_row), (Extents{1, 3}));
  EXPECT_EQ(fg::eigen_extents(one_column), (Extents{3, 1}));

  EXPECT_EQ(fg::Tensor::from(one_row).shape(), (Extents{1, 3}));
  EXPECT_EQ(fg::Tensor::from(one_column).shape(), (Extents{3, 1}));
  const fg::Const<double, Shape<dyn, dyn>> c(one_row);
  const fg::Var<double, Shape<3, 1>> v(one_column);
  EXPECT_EQ(c.extents(), (Extents{1, 3}));
  EXPECT_EQ(v.extents(), (Extents{3, 1}));
  EXPECT_EQ(values_of(v), (std::vector<double>{1, 2, 3}));
}

// Column-major Eigen storage is read in row-major order: element (i, j) lands at i * cols + j.
TEST(EigenExtents, MatricesAndMapsAreReadRowMajor) {
  Eigen::MatrixXd m(2, 3);  // stored 1 4 2 5 3 6
  m << 1, 2, 3, 4, 5, 6;
  const std::vector<double> row_major{1, 2, 3, 4, 5, 6};
  EXPECT_EQ(values_of(fg::Tensor::from(m)), row_major);
  EXPECT_EQ(values_of(fg::Var<double, Shape<2, 3>>(m)), row_major);

  const Eigen::Map<const Eigen::MatrixXd> map(m.data(), 2, 3);
  EXPECT_EQ(fg::eigen_extents(map), (Extents{2, 3}));
  EXPECT_EQ(values_of(fg::Tensor::from(map)), row_major);
  EXPECT_EQ(values_of(fg::Const<double, Shape<dyn, 3>>(map)), row_major);

  // A matrix's column is a vector type: rank 1.
  EXPECT_EQ(fg::Tensor::from(m.col(1)).shape(), Extents{2});
  EXPECT_EQ(values_of(fg::Tensor::from(m.col(1))), (std::vector<double>{2, 5}));
  EXPECT_EQ(values_of(fg::Tensor::from(m.row(1))), (std::vector<double>{4, 5, 6}));

  const Eigen::Map<const Eigen::VectorXd> flat(m.data(), 6);
  EXPECT_EQ(fg::Tensor::from(flat).shape(), Extents{6});
}

// Views follow the same rule: a vector for a rank-1 shape, a row-major matrix for rank 2.
TEST(EigenExtents, ViewsFollowTheSameRule) {
  Eigen::VectorXd v(4);
  v << 1, 2, 3, 4;
  const fg::Const<double, Shape<dyn>, fg::view> vector_view(v);
  EXPECT_EQ(vector_view.extents(), Extents{4});
  EXPECT_EQ(vector_view.data(), v.data());
  Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> m(1, 4);
  m << 1, 2, 3, 4;
  const fg::Const<double, Shape<dyn, dyn>, fg::view> matrix_view(m);
  EXPECT_EQ(matrix_view.extents(), (Extents{1, 4}));
}

// A run-time extent that does not fit the declared shape throws, naming both.
TEST(EigenExtents, AMismatchedStaticExtentThrowsNamingBothShapes) {
  Eigen::MatrixXd m(2, 3);
  m.setZero();
  fg::test::expect_error<fg::shape_error>([&] { fg::Var<double, Shape<3, 3>> x(m); }, {"(2, 3)", "(3, 3)"});
}

}  // namespace
