// expect: error: static assertion failed: fusegrad::einsum: an operand is a number
// fail/einsum_of_a_number.cpp -- a number among einsum's operands: one error that says to multiply the result by it
// (without it: no matching function, every candidate listed, and a second error from the overload that takes the
// subscripts at run time).
#include <fusegrad/fusegrad.hpp>

namespace fg = fusegrad;

int main() {
  const fg::Var<double, fg::Shape<2, 3>> a{1.0, 2.0, 3.0, 4.0, 5.0, 6.0};
#ifdef FUSEGRAD_FAIL
  const auto f = fg::eval(fg::einsum<"ij,->ij">(a, 2.0));
#else
  const auto f = fg::eval(fg::einsum<"ij->ij">(a) * 2.0);
#endif
  (void)f;
  return 0;
}
