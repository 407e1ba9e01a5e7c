// expect: error: static assertion failed: fusegrad::value_and_grad, grad, vjp and value_and_grad_into: a var given as a temporary
// fail/grad_of_a_temporary_var.cpp -- a var given as a temporary: no expression can hold one (it holds its vars by
// reference), so its gradient would be zeros. One error that says so. The legal twin gives the var f was built from.
#include <utility>

#include <fusegrad/fusegrad.hpp>

namespace fg = fusegrad;

int main() {
  fg::Var<double, fg::Shape<3>> x{1.0, 2.0, 3.0};
  const auto f = fg::sum(x * x);
#ifdef FUSEGRAD_FAIL
  const auto dx = fg::grad(f, std::move(x));
#else
  const auto dx = fg::grad(f, x);
#endif
  (void)dx;
  return 0;
}
