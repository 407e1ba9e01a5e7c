// expect: error: static assertion failed: fusegrad: an operand is data \(an Eigen object, std::vector
// fail/std_vector_as_an_operand.cpp -- a std::vector beside an expression in an operator, as a list beside a PyTorch
// tensor: one error that says how to make it a leaf (without it: no match for operator+, and every candidate listed).
// The legal twin makes it a Const through Eigen::Map.
#include <vector>

#include <Eigen/Core>

#include <fusegrad/fusegrad.hpp>

namespace fg = fusegrad;

// A program's own operator for a Var and a std::vector keeps its calls: fusegrad's overload for data is a worse match.
int operator*(const fg::Var<double, fg::Shape<3>>& /*x*/, const std::vector<double>& /*v*/) { return 0; }

int main() {
  fg::Var<double, fg::Shape<3>> x{1.0, 2.0, 3.0};  // not const, as a forwarding reference would bind them best
  std::vector<double> v{1.0, 2.0, 3.0};
  const int own = x * v;
  (void)own;
#ifdef FUSEGRAD_FAIL
  const auto f = fg::eval(fg::sum(x + v));
#else
  const fg::Const<double, fg::Shape<3>> c(Eigen::Map<const Eigen::VectorXd>(v.data(), 3));
  const auto f = fg::eval(fg::sum(x + c));
#endif
  (void)f;
  return 0;
}
