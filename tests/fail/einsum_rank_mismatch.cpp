// expect: error: .*einsum_error<.*operand 1 has rank 2 but 3 subscripts
// fail/einsum_rank_mismatch.cpp -- subscripts whose count is not the operand's static rank: one error naming it.
#include <fusegrad/expr/leaf.hpp>
#include <fusegrad/ops/einsum.hpp>

int main() {
  fusegrad::Var<double, fusegrad::Shape<2, 3>> a;
  fusegrad::Var<double, fusegrad::Shape<3, 4>> b;
  fusegrad::Var<double, fusegrad::Shape<4, 4>> c;
  [[maybe_unused]] auto fine = fusegrad::einsum<"ij,jk->ik">(a, b);  // the legal twin
#ifdef FUSEGRAD_FAIL
  [[maybe_unused]] auto wrong = fusegrad::einsum<"ij,jkl->ik">(a, b);
#endif
  return 0;
}
