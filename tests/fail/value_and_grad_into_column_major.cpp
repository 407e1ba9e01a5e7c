// expect: error: static assertion failed: fusegrad::value_and_grad_into\(f, gradients, vars...\): each output is a number of the var's scalar type for a Shape<> var, else contiguous Eigen storage of that scalar type in the var's row-major order
// fail/value_and_grad_into_column_major.cpp -- a rank-2 var's gradient into a column-major matrix would be written in
// the wrong order: one static assertion says what an output must be.
#include <fusegrad/fusegrad.hpp>

namespace fg = fusegrad;

int main() {
  const fg::Var<double, fg::Shape<2, 3>> a(fg::Extents{2, 3}, {1, 2, 3, 4, 5, 6});
  Eigen::Matrix<double, 2, 3, Eigen::RowMajor> row_major;
  fg::value_and_grad_into(fg::sum(a * a), std::tie(row_major), a);  // the legal twin
#ifdef FUSEGRAD_FAIL
  Eigen::Matrix<double, 2, 3> column_major;
  fg::value_and_grad_into(fg::sum(a * a), std::tie(column_major), a);
#endif
  return 0;
}
