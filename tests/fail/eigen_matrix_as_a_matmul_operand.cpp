// expect: error: static assertion failed: fusegrad: an operand is data \(an Eigen object, std::vector
// fail/eigen_matrix_as_a_matmul_operand.cpp -- matmul of an expression and an Eigen matrix: one error that says how to
// make the matrix a leaf (without it: no matching function, and every candidate listed). The legal twin copies it into
// a Const.
#include <Eigen/Core>

#include <fusegrad/fusegrad.hpp>

namespace fg = fusegrad;

int main() {
  const fg::Var<double, fg::Shape<2, 3>> x{1.0, 2.0, 3.0, 4.0, 5.0, 6.0};
  const Eigen::Matrix<double, 3, 2> m = Eigen::Matrix<double, 3, 2>::Ones();
#ifdef FUSEGRAD_FAIL
  const auto f = fg::eval(fg::sum(fg::matmul(x, m)));
#else
  const auto f = fg::eval(fg::sum(fg::matmul(x, fg::Const<double, fg::Shape<3, 2>>(m))));
#endif
  (void)f;
  return 0;
}
