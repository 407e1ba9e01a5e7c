// expect: error: static assertion failed: fusegrad::Var/Const: a leaf's values change through value\(\)
// fail/update_a_var_in_place.cpp -- a gradient step written as PyTorch's in-place update, w -= lr * grad, on a Var:
// one error that says its values change through value() (without it: no match for operator-=, and Eigen's
// candidates). The legal twin updates through value().
#include <fusegrad/fusegrad.hpp>

namespace fg = fusegrad;

int main() {
  fg::Var<double, fg::Shape<3>> w{1.0, 2.0, 3.0};
  const auto dw = fg::grad(fg::sum(w * w), w);
#ifdef FUSEGRAD_FAIL
  w -= 0.1 * dw;
#else
  w.value() -= 0.1 * dw;
#endif
  return 0;
}
