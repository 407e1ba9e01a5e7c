// expect: error: static assertion failed: fusegrad::Var/Const: a shape known at run time takes its extents, then the values
// fail/values_alone_for_a_runtime_shape.cpp -- a Shape<dyn> Var given values alone: one diagnostic that shows the
// form with extents first.
#include <fusegrad/fusegrad.hpp>

namespace fg = fusegrad;

int main() {
  const fg::Var<double, fg::Shape<fg::dyn>> fine({3}, {1.0, 2.0, 3.0});  // the legal twin: extents, then values
  const fg::Var<double, fg::Shape<fg::dyn>> zeros({3});                   // and three zeros: integers are extents
  (void)fine;
  (void)zeros;
#ifdef FUSEGRAD_FAIL
  const fg::Var<double, fg::Shape<fg::dyn>> x{1.0, 2.0, 3.0};
  (void)x;
#endif
  return 0;
}
