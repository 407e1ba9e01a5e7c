// expect: error: static assertion failed: fusegrad::Var<T, S>: S is the shape, a type
// fail/var_without_a_shape.cpp -- a Var that names no shape, as a torch.tensor needs none: one diagnostic that shows
// the shape type, and no knock-on error where the Var is initialised or used.
#include <fusegrad/fusegrad.hpp>

namespace fg = fusegrad;

int main() {
  const fg::Var<double, fg::Shape<3>> fine{1.0, 2.0, 3.0};  // the legal twin
  (void)fg::eval(fg::sum(fine));
#ifdef FUSEGRAD_FAIL
  const fg::Var<double> x{1.0, 2.0, 3.0};
  (void)fg::eval(fg::sum(x));
#endif
  return 0;
}
