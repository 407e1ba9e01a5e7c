// expect: error: static assertion failed: fusegrad: an operand is data \(an Eigen object, std::vector
// fail/std_vector_as_an_operand.cpp -- a std::vector beside an expression in an operator, as a list beside a PyTorch
// tensor: one error that says how to make it a leaf (without it: no match for operator+, and every candidate listed).
// The legal twin makes it a Const through Eigen::Map.
#include <vector>

#include <Eigen/Core>

#include <fusegrad/fusegrad.hpp>

namespace fg = fusegrad;

int main() {
  const fg::Var<double, fg::Shape<3>> x{1.0, 2.0, 3.0};
  const std::vector<double> v{1.0, 2.0, 3.0};
#ifdef FUSEGRAD_FAIL
  const auto f = fg::eval(fg::sum(x + v));
#else
  const fg::Const<double, fg::Shape<3>> c(Eigen::Map<const Eigen::VectorXd>(v.data(), 3));
  const auto f = fg::eval(fg::sum(x + c));
#endif
  (void)f;
  return 0;
}
