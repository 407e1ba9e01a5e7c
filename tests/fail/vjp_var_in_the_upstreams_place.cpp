// expect: error: static assertion failed: fusegrad::vjp\(f, upstream, vars...\): the second argument is the upstream gradient
// fail/vjp_var_in_the_upstreams_place.cpp -- vjp(f, x) without an upstream: the Var lands where the upstream goes.
#include <fusegrad/fusegrad.hpp>

namespace fg = fusegrad;

int main() {
  const fg::Var<double, fg::Shape<3>> x{1.0, 2.0, 3.0};
  auto [values, dx] = fg::vjp(fg::sin(x), 1.0, x);  // the legal twin: the upstream, then the vars
  (void)values;
  (void)dx;
#ifdef FUSEGRAD_FAIL
  auto [v, d] = fg::vjp(fg::sin(x), x);
  (void)v;
  (void)d;
#endif
  return 0;
}
