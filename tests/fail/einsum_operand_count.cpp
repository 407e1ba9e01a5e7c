// expect: error: .*einsum_error<.*the subscripts name 2 operands and 3 are given
// fail/einsum_operand_count.cpp -- einsum subscripts for two operands given three: one error counting both.
#include <fusegrad/expr/leaf.hpp>
#include <fusegrad/ops/einsum.hpp>

int main() {
  fusegrad::Var<double, fusegrad::Shape<2, 3>> a;
  fusegrad::Var<double, fusegrad::Shape<3, 4>> b;
  fusegrad::Var<double, fusegrad::Shape<4, 4>> c;
  [[maybe_unused]] auto fine = fusegrad::einsum<"ij,jk->ik">(a, b);  // the legal twin
#ifdef FUSEGRAD_FAIL
  [[maybe_unused]] auto wrong = fusegrad::einsum<"ij,jk->ik">(a, b, c);
#endif
  return 0;
}
