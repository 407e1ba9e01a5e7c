// expect: error: static assertion failed: fusegrad::matmul\(a, b\): an operand is a number
// fail/matmul_by_a_number.cpp -- matmul of an expression and a number: one error that says to scale with * (without
// it: no matching function, and every candidate listed).
#include <fusegrad/fusegrad.hpp>

namespace fg = fusegrad;

int main() {
  const fg::Var<double, fg::Shape<2, 3>> x{1.0, 2.0, 3.0, 4.0, 5.0, 6.0};
#ifdef FUSEGRAD_FAIL
  const auto f = fg::eval(fg::sum(fg::matmul(x, 2.0)));
#else
  const auto f = fg::eval(fg::sum(x * 2.0));
#endif
  (void)f;
  return 0;
}
