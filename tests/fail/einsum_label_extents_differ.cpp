// expect: error: .*einsum_error<.*label j is 3 in operand 0 and 4 in operand 1
// fail/einsum_label_extents_differ.cpp -- one einsum label bound to two static extents: one error naming both.
#include <fusegrad/expr/leaf.hpp>
#include <fusegrad/ops/einsum.hpp>

int main() {
  fusegrad::Var<double, fusegrad::Shape<2, 3>> a;
  fusegrad::Var<double, fusegrad::Shape<3, 4>> b;
  fusegrad::Var<double, fusegrad::Shape<4, 4>> c;
  [[maybe_unused]] auto fine = fusegrad::einsum<"ij,jk->ik">(a, b);  // the legal twin
#ifdef FUSEGRAD_FAIL
  [[maybe_unused]] auto wrong = fusegrad::einsum<"ij,jk->ik">(a, c);
#endif
  return 0;
}
