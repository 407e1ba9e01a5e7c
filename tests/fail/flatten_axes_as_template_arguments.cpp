// expect: error: static assertion failed: fusegrad::flatten\(x, start, end\): the axes are run-time arguments
// fail/flatten_axes_as_template_arguments.cpp -- flatten's axes given as template arguments, fg::flatten<0, 1>(x): one
// error that says they are run-time arguments (without it: wrong number of template arguments, and a second error).
// The legal twin passes them.
#include <fusegrad/fusegrad.hpp>

namespace fg = fusegrad;

int main() {
  const fg::Var<double, fg::Shape<2, 3>> x{1.0, 2.0, 3.0, 4.0, 5.0, 6.0};
#ifdef FUSEGRAD_FAIL
  const auto flat = fg::eval(fg::flatten<0, 1>(x));
#else
  const auto flat = fg::eval(fg::flatten(x, 0, 1));
#endif
  (void)flat;
  return 0;
}
