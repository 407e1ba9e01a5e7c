// expect: error: .*transpose_needs_a_matrix_not<fusegrad::Shape<3>, .*"\(3\)"
// fail/transpose_of_vector.cpp -- transpose of a rank-1 shape: a compile error naming the shape.
#include <fusegrad/fusegrad.hpp>

namespace fg = fusegrad;

int main() {
  fg::Var<double, fg::Shape<1, 3>> row;
  const auto fine = fg::transpose(row);  // the legal twin: a (1,3) matrix transposes to (3,1)
  (void)fine;
#ifdef FUSEGRAD_FAIL
  fg::Var<double, fg::Shape<3>> v;
  const auto vector = fg::transpose(v);  // a vector has no second axis: declare it Shape<1, 3> or Shape<3, 1>
  (void)vector;
#endif
  return 0;
}
