// expect: error: static assertion failed: fusegrad::value_and_grad_into\(f, gradients, vars...\): every var must have f's scalar type
// fail/into_var_of_another_scalar_type.cpp -- a double var beside a float f, which does not read it: one diagnostic,
// not errors from inside the library.
#include <tuple>

#include <Eigen/Core>

#include <fusegrad/static.hpp>

namespace fg = fusegrad;

int main() {
  const fg::Var<float, fg::Shape<3>> a{1.0f, 2.0f, 3.0f};
  Eigen::Array3f da;
  (void)fg::value_and_grad_into(fg::sum(a * a), std::tie(da), a);  // the legal twin
#ifdef FUSEGRAD_FAIL
  const fg::Var<double, fg::Shape<3>> b{1.0, 2.0, 3.0};
  Eigen::Array3d db;
  (void)fg::value_and_grad_into(fg::sum(a * a), std::tie(da, db), a, b);  // give b f's scalar type
#endif
  return 0;
}
