// expect: error: .*matmul_needs_two_matrices_not<fusegrad::Shape<3>, fusegrad::Shape<3, 2>, .*"\(3\) and \(3, 2\)"
// fail/matmul_of_vector.cpp -- matmul of a rank-1 shape and a matrix: a compile error naming both shapes.
#include <fusegrad/fusegrad.hpp>

namespace fg = fusegrad;

int main() {
  fg::Var<double, fg::Shape<1, 3>> row;
  fg::Var<double, fg::Shape<3, 2>> m;
  const auto fine = fg::matmul(row, m);  // the legal twin: (1, 3) x (3, 2) -> (1, 2)
  (void)fine;
#ifdef FUSEGRAD_FAIL
  fg::Var<double, fg::Shape<3>> v;
  const auto product = fg::matmul(v, m);  // a vector is not a matrix: declare it Shape<1, 3>
  (void)product;
#endif
  return 0;
}
