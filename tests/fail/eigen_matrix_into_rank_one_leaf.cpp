// expect: error: static assertion failed: fusegrad: an Eigen vector type gives a leaf of rank 1
// fail/eigen_matrix_into_rank_one_leaf.cpp -- an Eigen matrix (rank 2, even with one column) into a rank-1 leaf:
// a compile error stating the rule.
#include <Eigen/Core>

#include <fusegrad/fusegrad.hpp>

namespace fg = fusegrad;

int main() {
  const Eigen::MatrixXd column = Eigen::MatrixXd::Ones(3, 1);
  const fg::Var<double, fg::Shape<fg::dyn, 1>> fine(column);  // the legal twin: a matrix is (rows, cols)
  (void)fine;
#ifdef FUSEGRAD_FAIL
  const fg::Var<double, fg::Shape<fg::dyn>> x(column);  // a vector needs an Eigen vector type: column.col(0)
  (void)x;
#endif
  return 0;
}
