// expect: error: static assertion failed: fusegrad::ScalarTensor: the expression's static shape is not Shape<> \(rank 0\)
// fail/scalar_tensor_of_a_vector.cpp -- a ScalarTensor given a Var of static shape (3): the one error of its rank, and
// none from recording it.
#include <fusegrad/fusegrad.hpp>

namespace fg = fusegrad;

int main() {
  const fg::Var<double, fg::Shape<3>> x{1.0, 2.0, 3.0};
  const fg::Tensor t = fg::Tensor::from(x.value(), x.extents());
  // The legal twins: a tensor expression reduced to a scalar, and an expression of static shape () over a Const.
  const fg::ScalarTensor fine = fg::sum(t * 2.0);
  const fg::ScalarTensor of_static_scalar = fg::sum(fg::Const<double, fg::Shape<3>>{1.0, 2.0, 3.0} * 2.0);
  (void)fine;
  (void)of_static_scalar;
#ifdef FUSEGRAD_FAIL
  const fg::ScalarTensor of_var = x;
  (void)of_var;
#endif
  return 0;
}
