// expect: error: static assertion failed: fusegrad::value_and_grad_into\(f, gradients, vars...\): each output is a number of the var's scalar type
// fail/into_output_of_another_scalar_type.cpp -- a float array for a double var's gradient: one diagnostic, not
// errors from inside the library.
#include <tuple>

#include <Eigen/Core>

#include <fusegrad/static.hpp>

namespace fg = fusegrad;

int main() {
  const fg::Var<double, fg::Shape<3>> x{1.0, 2.0, 3.0};
  Eigen::Array3d dx;
  [[maybe_unused]] const double fine = fg::value_and_grad_into(fg::sum(x * x), std::tie(dx), x);  // the legal twin
#ifdef FUSEGRAD_FAIL
  Eigen::Array3f in_float;  // make it an Eigen::Array3d
  [[maybe_unused]] const double wrong = fg::value_and_grad_into(fg::sum(x * x), std::tie(in_float), x);
#endif
  return 0;
}
