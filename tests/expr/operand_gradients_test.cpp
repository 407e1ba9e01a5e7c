// expr/operand_gradients_test.cpp -- the gradient of a var or tensor that is an operand of a materialised node
// (matmul, einsum, cumsum): written straight into its gradient when nothing else sends to it, added with the other
// contributions when it is used again; in value_and_grad, value_and_grad_into and vjp, and on the tape (a tensor
// with no gradient yet, then one that has a gradient to add to). Expected values from the matrix calculus of
// sum(R o (X W)): dX = R W^T, dW = X^T R.
#include <gtest/gtest.h>

#include <Eigen/Core>

#include <fusegrad/fusegrad.hpp>

namespace fg = fusegrad;

namespace {

using Matrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using Dyn2 = fg::Shape<fg::dyn, fg::dyn>;

Matrix matrix(Eigen::Index rows, Eigen::Index cols, double start) {
  Matrix m(rows, cols);
  for (Eigen::Index k = 0; k < m.size(); ++k) m.data()[k] = start + 0.25 * double(k % 7) - 0.125 * double(k % 3);
  return m;
}

template <class Leaf>
Leaf leaf_of(const Matrix& m) {
  Leaf leaf(fg::Extents{std::size_t(m.rows()), std::size_t(m.cols())});
  Eigen::Map<Matrix>(leaf.value().data(), m.rows(), m.cols()) = m;
  return leaf;
}

template <class G>
Matrix as_matrix(const G& g, Eigen::Index rows, Eigen::Index cols) {
  return Eigen::Map<const Matrix>(g.data(), rows, cols);
}

class OperandGradients : public ::testing::Test {
 protected:
  Matrix X = matrix(3, 4, -1.0), W = matrix(4, 2, 0.5), R = matrix(3, 2, 0.25);
  fg::Var<double, Dyn2> x = leaf_of<fg::Var<double, Dyn2>>(X), w = leaf_of<fg::Var<double, Dyn2>>(W);
  fg::Const<double, Dyn2> r = leaf_of<fg::Const<double, Dyn2>>(R);
};

TEST_F(OperandGradients, EachVarUsedOnceTakesItsProductsGradient) {
  const auto [value, dx, dw] = fg::value_and_grad(fg::sum(fg::matmul(x, w) * r), x, w);
  EXPECT_NEAR(value, (X * W).cwiseProduct(R).sum(), 1e-12);
  EXPECT_TRUE(as_matrix(dx, 3, 4).isApprox(R * W.transpose(), 1e-12));
  EXPECT_TRUE(as_matrix(dw, 4, 2).isApprox(X.transpose() * R, 1e-12));
}

TEST_F(OperandGradients, IntoMemoryThatHeldOtherValues) {
  Eigen::ArrayXd dx = Eigen::ArrayXd::Constant(12, 99.0), dw = Eigen::ArrayXd::Constant(8, -99.0);
  fg::value_and_grad_into(fg::sum(fg::einsum<"ij,jk->ik">(x, w) * r), std::tie(dx, dw), x, w);
  EXPECT_TRUE(as_matrix(dx, 3, 4).isApprox(R * W.transpose(), 1e-12));
  EXPECT_TRUE(as_matrix(dw, 4, 2).isApprox(X.transpose() * R, 1e-12));
}

TEST_F(OperandGradients, AVarUsedAgainAddsEveryUse) {
  // f = sum(R o (X W)) + sum(X o X): dX = R W^T + 2 X.
  const auto [value, dx, dw] = fg::value_and_grad(fg::sum(fg::matmul(x, w) * r) + fg::sum(x * x), x, w);
  EXPECT_NEAR(value, (X * W).cwiseProduct(R).sum() + X.squaredNorm(), 1e-12);
  EXPECT_TRUE(as_matrix(dx, 3, 4).isApprox(R * W.transpose() + 2 * X, 1e-12));
  EXPECT_TRUE(as_matrix(dw, 4, 2).isApprox(X.transpose() * R, 1e-12));
}

TEST_F(OperandGradients, BothOperandsOneVar) {
  // f = sum(S o (X X^T)) for S 3x3: dX = (S + S^T) X.
  const Matrix S = matrix(3, 3, 0.75);
  const fg::Const<double, Dyn2> s = leaf_of<fg::Const<double, Dyn2>>(S);
  const auto [value, dx] = fg::value_and_grad(fg::sum(fg::einsum<"ik,jk->ij">(x, x) * s), x);
  EXPECT_NEAR(value, (X * X.transpose()).cwiseProduct(S).sum(), 1e-12);
  EXPECT_TRUE(as_matrix(dx, 3, 4).isApprox((S + S.transpose()) * X, 1e-12));
}

TEST_F(OperandGradients, AVarNamedTwice) {
  const auto [value, dx, dw, dx_again] = fg::value_and_grad(fg::sum(fg::matmul(x, w) * r), x, w, x);
  EXPECT_TRUE(as_matrix(dx, 3, 4).isApprox(R * W.transpose(), 1e-12));
  EXPECT_TRUE(as_matrix(dx_again, 3, 4).isApprox(R * W.transpose(), 1e-12));
  EXPECT_TRUE(as_matrix(dw, 4, 2).isApprox(X.transpose() * R, 1e-12));
}

TEST_F(OperandGradients, NoGradientThroughAComparison) {
  // f = sum((X W > 0) o R) + sum(W): X's only use is below the comparison, which passes no gradient.
  const auto [value, dx, dw] = fg::value_and_grad(fg::sum((fg::matmul(x, w) > 0.0) * r) + fg::sum(w), x, w);
  EXPECT_NEAR(value, ((X * W).array() > 0.0).cast<double>().matrix().cwiseProduct(R).sum() + W.sum(), 1e-12);
  EXPECT_TRUE(as_matrix(dx, 3, 4).isZero(0.0));
  EXPECT_TRUE(as_matrix(dw, 4, 2).isApprox(Matrix::Ones(4, 2), 1e-12));
}

TEST_F(OperandGradients, AVarBelowAComparisonAndElsewhere) {
  // f = sum(X o X) + sum((X W > 0) o R): only the first use passes a gradient, dX = 2 X.
  const auto [value, dx] = fg::value_and_grad(fg::sum(x * x) + fg::sum((fg::matmul(x, w) > 0.0) * r), x);
  EXPECT_TRUE(as_matrix(dx, 3, 4).isApprox(2 * X, 1e-12));
  (void)value;
}

TEST_F(OperandGradients, VjpOfARunningSum) {
  // y = cumsum(X) along axis 0; the vjp of U: dX[i] = sum over k >= i of U[k].
  const Matrix U = matrix(3, 4, 1.0);
  const auto [y, dx] =
      fg::vjp(fg::cumsum(x, fg::axes<0>), Eigen::ArrayXd(Eigen::Map<const Eigen::ArrayXd>(U.data(), 12)), x);
  Matrix expected = U;
  for (Eigen::Index i = 1; i >= 0; --i) expected.row(i) += expected.row(i + 1);
  EXPECT_TRUE(as_matrix(dx, 3, 4).isApprox(expected, 1e-12));
  (void)y;
}

// --- the tape: a tensor whose gradient is made by this backward takes the VJP in place ---------------------------

class TapeOperandGradients : public OperandGradients {
 protected:
  static fg::Tensor tensor_of(const Matrix& m) { return fg::Tensor::from(m); }
  static Matrix grad_of(const fg::Tensor& t) {
    const fg::Tensor g = t.grad();
    return Eigen::Map<const Matrix>(g.data(), Eigen::Index(t.shape()[0]), Eigen::Index(t.shape()[1]));
  }
  fg::Tensor tx = tensor_of(X).requires_grad_(), tw = tensor_of(W).requires_grad_();
  fg::ConstTensor tr{tensor_of(R)};
};

TEST_F(TapeOperandGradients, FirstBackwardWritesThenTheNextAdds) {
  fg::Tensor(fg::sum(fg::matmul(tx, tw) * tr)).backward();
  EXPECT_TRUE(grad_of(tx).isApprox(R * W.transpose(), 1e-12));
  EXPECT_TRUE(grad_of(tw).isApprox(X.transpose() * R, 1e-12));
  fg::Tensor(fg::sum(fg::einsum("ij,jk->ik", tx, tw) * tr)).backward();  // the gradients exist: added to
  EXPECT_TRUE(grad_of(tx).isApprox(2 * R * W.transpose(), 1e-12));
  EXPECT_TRUE(grad_of(tw).isApprox(2 * X.transpose() * R, 1e-12));
}

TEST_F(TapeOperandGradients, OneNodePerOp) {
  fg::taped(fg::sum(fg::matmul(tx, tw) * tr)).backward();
  EXPECT_TRUE(grad_of(tx).isApprox(R * W.transpose(), 1e-12));
  EXPECT_TRUE(grad_of(tw).isApprox(X.transpose() * R, 1e-12));
}

TEST_F(TapeOperandGradients, ATensorUsedAgainAddsEveryUse) {
  fg::Tensor(fg::sum(fg::matmul(tx, tw) * tr) + fg::sum(tx * tx)).backward();
  EXPECT_TRUE(grad_of(tx).isApprox(R * W.transpose() + 2 * X, 1e-12));
  EXPECT_TRUE(grad_of(tw).isApprox(X.transpose() * R, 1e-12));
}

TEST_F(TapeOperandGradients, BothOperandsOneTensor) {
  const Matrix S = matrix(3, 3, 0.75);
  fg::Tensor(fg::sum(fg::einsum("ik,jk->ij", tx, tx) * fg::ConstTensor(tensor_of(S)))).backward();
  EXPECT_TRUE(grad_of(tx).isApprox((S + S.transpose()) * X, 1e-12));
}

TEST_F(TapeOperandGradients, NoGradientThroughAComparison) {
  fg::Tensor(fg::sum((fg::matmul(tx, tw) > 0.0) * tr) + fg::sum(tw)).backward();
  EXPECT_FALSE(tx.grad().defined());  // as PyTorch's None: no gradient reaches X
  EXPECT_TRUE(grad_of(tw).isApprox(Matrix::Ones(4, 2), 1e-12));
}

TEST_F(TapeOperandGradients, AnOperandRecordedByAnotherNode) {
  // y = 2 X, its own node; f = sum(R o (y W)): dX = 2 R W^T, through y's node's gradient buffer.
  const fg::Tensor y = fg::taped(2.0 * tx);
  fg::Tensor(fg::sum(fg::matmul(y, tw) * tr)).backward();
  EXPECT_TRUE(grad_of(tx).isApprox(2 * R * W.transpose(), 1e-12));
  EXPECT_TRUE(grad_of(tw).isApprox(2 * X.transpose() * R, 1e-12));
}

}  // namespace
