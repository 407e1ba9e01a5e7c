// expect: error: .*matmul_of_a_scalar<fusegrad::Shape<>, fusegrad::Shape<3, 2>, .*"\(\) and \(3, 2\)"
// fail/matmul_of_scalar.cpp -- matmul of a scalar and a matrix: a compile error naming both shapes.
#include <fusegrad/fusegrad.hpp>

namespace fg = fusegrad;

int main() {
  fg::Var<double, fg::Shape<3>> v;
  fg::Var<double, fg::Shape<3, 2>> m;
  const auto fine = fg::matmul(v, m);  // the legal twin: a vector times a matrix -> (2)
  (void)fine;
#ifdef FUSEGRAD_FAIL
  fg::Var<double, fg::Shape<>> s;
  const auto product = fg::matmul(s, m);  // a scalar has no axis to contract: multiply with *
  (void)product;
#endif
  return 0;
}
