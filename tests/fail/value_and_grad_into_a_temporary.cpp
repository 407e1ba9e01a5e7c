// expect: error: static assertion failed: fusegrad::value_and_grad_into\(f, gradient, var\): the output is a temporary
// fail/value_and_grad_into_a_temporary.cpp -- one var's gradient written into a temporary array, which would throw it
// away: one error. The legal twin writes into a named array and through a Map made in the call.
#include <vector>

#include <fusegrad/fusegrad.hpp>

namespace fg = fusegrad;

int main() {
  const fg::Var<double, fg::Shape<3>> x{1.0, 2.0, 3.0};
#ifdef FUSEGRAD_FAIL
  (void)fg::value_and_grad_into(fg::sum(x * x), Eigen::Array3d(), x);
#else
  Eigen::Array3d dx;
  std::vector<double> memory(3);
  (void)fg::value_and_grad_into(fg::sum(x * x), dx, x);
  (void)fg::value_and_grad_into(fg::sum(x * x), Eigen::Map<Eigen::Array3d>(memory.data()), x);
#endif
  return 0;
}
