// expect: error: static assertion failed: fusegrad: a view leaf reads its values row-major, and this Eigen matrix is column-major
// fail/view_of_column_major_matrix.cpp -- a view leaf over Eigen's default (column-major) matrix: a compile error
// stating the rule, not a missing constructor.
#include <Eigen/Core>

#include <fusegrad/fusegrad.hpp>

namespace fg = fusegrad;

int main() {
  const Eigen::Matrix<double, 2, 3, Eigen::RowMajor> rows = Eigen::Matrix<double, 2, 3, Eigen::RowMajor>::Ones();
  const fg::Const<double, fg::Shape<2, 3>, fg::view> fine(rows);  // the legal twin: row-major
  (void)fine;
#ifdef FUSEGRAD_FAIL
  const Eigen::MatrixXd columns = Eigen::MatrixXd::Ones(2, 3);
  const fg::Const<double, fg::Shape<2, 3>, fg::view> c(columns);
  (void)c;
#endif
  return 0;
}
