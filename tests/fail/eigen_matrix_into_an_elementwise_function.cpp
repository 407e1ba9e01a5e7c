// expect: error: static assertion failed: fusegrad: an operand is data \(an Eigen object, std::vector
// fail/eigen_matrix_into_an_elementwise_function.cpp -- an Eigen matrix into an element-wise function (fg::sin, fg::exp
// ...) that takes an expression: one error that says how to make it a leaf (without it: no matching function, and
// every candidate listed). The legal twin copies it into a Const.
#include <Eigen/Core>

#include <fusegrad/fusegrad.hpp>

namespace fg = fusegrad;

int main() {
  const Eigen::MatrixXd m = Eigen::MatrixXd::Ones(2, 2);
  {
    using namespace fusegrad;  // beside fusegrad's sin, Eigen's sin of an array keeps its calls
    const Eigen::ArrayXXd eigen_sin = sin(m.array());
    (void)eigen_sin;
  }
#ifdef FUSEGRAD_FAIL
  const auto f = fg::eval(fg::sum(fg::sin(m)));
#else
  const auto f = fg::eval(fg::sum(fg::sin(fg::Const<double, fg::Shape<2, 2>>(m))));
#endif
  (void)f;
  return 0;
}
