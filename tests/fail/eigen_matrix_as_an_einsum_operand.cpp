// expect: error: static assertion failed: fusegrad: an operand is data \(an Eigen object, std::vector
// fail/eigen_matrix_as_an_einsum_operand.cpp -- an Eigen matrix among einsum's operands: one error that says how to
// make it a leaf (without it: no matching function, every candidate listed, and a second error from the overload that
// takes the subscripts at run time). The legal twin copies it into a Const.
#include <Eigen/Core>

#include <fusegrad/fusegrad.hpp>

namespace fg = fusegrad;

int main() {
  const fg::Var<double, fg::Shape<2, 3>> a{1.0, 2.0, 3.0, 4.0, 5.0, 6.0};
  const Eigen::Matrix<double, 3, 2> m = Eigen::Matrix<double, 3, 2>::Ones();
#ifdef FUSEGRAD_FAIL
  const auto f = fg::eval(fg::einsum<"ij,jk->ik">(a, m));
#else
  const auto f = fg::eval(fg::einsum<"ij,jk->ik">(a, fg::Const<double, fg::Shape<3, 2>>(m)));
#endif
  (void)f;
  return 0;
}
