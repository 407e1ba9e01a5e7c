// expect: error: .*einsum_error<.*output label q appears in no operand
// fail/einsum_output_label_of_no_operand.cpp -- an einsum output label that no operand has: one error naming it.
#include <fusegrad/expr/leaf.hpp>
#include <fusegrad/ops/einsum.hpp>

int main() {
  fusegrad::Var<double, fusegrad::Shape<2, 3>> a;
  fusegrad::Var<double, fusegrad::Shape<3, 4>> b;
  fusegrad::Var<double, fusegrad::Shape<4, 4>> c;
  [[maybe_unused]] auto fine = fusegrad::einsum<"ij,jk->ik">(a, b);  // the legal twin
#ifdef FUSEGRAD_FAIL
  [[maybe_unused]] auto wrong = fusegrad::einsum<"ij,jk->iq">(a, b);
#endif
  return 0;
}
