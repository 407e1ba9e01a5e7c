// expect: error: static assertion failed: fusegrad: axes are given at compile time, as fg::axes<1>
// fail/axis_given_as_a_number.cpp -- a reduction's axis given as a number, as PyTorch's dim=1, in both layers: one
// error that says how axes are given (without it: no matching function, and every candidate listed). The legal twin
// gives fg::axes<1>.
#include <fusegrad/fusegrad.hpp>

namespace fg = fusegrad;

int main() {
  const fg::Var<double, fg::Shape<2, 3>> x{1.0, 2.0, 3.0, 4.0, 5.0, 6.0};
  const fg::Tensor t = fg::Tensor::ones({2, 3});
#ifdef FUSEGRAD_FAIL
  const auto rows = fg::eval(fg::sum(x, 1));
  const fg::Tensor columns = fg::log_softmax(t, 0);
#else
  const auto rows = fg::eval(fg::sum(x, fg::axes<1>));
  const fg::Tensor columns = fg::log_softmax(t, fg::axes<0>);
#endif
  (void)rows;
  (void)columns;
  return 0;
}
