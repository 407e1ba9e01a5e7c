// expect: error: .*reshape_changes_the_number_of_elements<fusegrad::Shape<2, 3>, fusegrad::Shape<4, 2>, .*"\(2, 3\) and \(4, 2\)"
// fail/reshape_to_another_size.cpp -- a static reshape of (2, 3) to (4, 2): one error naming both shapes.
#include <fusegrad/ops/reshape.hpp>

int main() {
  fusegrad::Var<double, fusegrad::Shape<2, 3>> x;
  [[maybe_unused]] auto fine = fusegrad::reshape<3, 2>(x);  // the legal twin: six elements either way
#ifdef FUSEGRAD_FAIL
  [[maybe_unused]] auto eight = fusegrad::reshape<4, 2>(x);  // six elements cannot fill eight places
#endif
  return 0;
}
