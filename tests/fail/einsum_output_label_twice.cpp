// expect: error: .*einsum_error<.*output label i appears twice
// fail/einsum_output_label_twice.cpp -- an einsum output label used twice: one error naming it.
#include <fusegrad/expr/leaf.hpp>
#include <fusegrad/ops/einsum.hpp>

int main() {
  fusegrad::Var<double, fusegrad::Shape<2, 3>> a;
  fusegrad::Var<double, fusegrad::Shape<3, 4>> b;
  fusegrad::Var<double, fusegrad::Shape<4, 4>> c;
  [[maybe_unused]] auto fine = fusegrad::einsum<"ij,jk->ik">(a, b);  // the legal twin
#ifdef FUSEGRAD_FAIL
  [[maybe_unused]] auto wrong = fusegrad::einsum<"ij,jk->ii">(a, b);
#endif
  return 0;
}
