// expect: error: static assertion failed: fusegrad::value_and_grad and grad\(f, vars...\): the vars of an expression are given one by one
// fail/grad_of_vars_in_braces.cpp -- the vars of a static expression given in braces, as fg::grad(loss, {w, b}) takes
// Tensors: one error that says they come one by one (without it: no matching function, and every candidate listed).
// The gradients it returns after the error take their uses (indexing, arithmetic, the members a gradient is most often
// asked for) without a second error. The legal twin names the vars one by one.
#include <fusegrad/fusegrad.hpp>

namespace fg = fusegrad;

int main() {
  const fg::Var<double, fg::Shape<3>> x{1.0, 2.0, 3.0};
  const fg::Var<double, fg::Shape<2>> y{4.0, 5.0};
#ifdef FUSEGRAD_FAIL
  const auto [dx, dy] = fg::grad(fg::sum(x) * fg::sum(y), {x, y});
#else
  const auto [dx, dy] = fg::grad(fg::sum(x) * fg::sum(y), x, y);
#endif
  return dx(0) + dy(1) + dx.sum() + dy.matrix().norm() + double(dx.size()) + dx.head<2>().sum() > 0 ? 0 : 1;
}
