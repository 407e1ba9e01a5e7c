// expect: error: static assertion failed: fusegrad::ScalarTensor: the expression's static shape is not Shape<> \(rank 0\)
// fail/scalar_tensor_of_a_vector.cpp -- a ScalarTensor recorded from an expression of static shape (3), or given a Var
// of that shape: the one error of its rank, and none from recording it.
#include <fusegrad/fusegrad.hpp>

namespace fg = fusegrad;

int main() {
  const fg::Var<double, fg::Shape<3>> x{1.0, 2.0, 3.0};
  const fg::Tensor t = fg::Tensor::from(x.value(), x.extents());
  const fg::ScalarTensor fine = fg::sum(t * 2.0);  // the legal twin: reduced to a scalar
  (void)fine;
#ifdef FUSEGRAD_FAIL
  const fg::ScalarTensor of_var = x;
  (void)of_var;
#endif
  return 0;
}
