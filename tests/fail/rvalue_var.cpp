// expect: error: static assertion failed: fusegrad: a Var passed as an rvalue \(a temporary or std::move\(x\)\) would be copied into the expression
// fail/rvalue_var.cpp -- std::move(x) into an expression: the node would hold a copy of x, so value_and_grad(f, x)
// would find no x and give a zero gradient. The legal twin passes x by name.
#include <utility>

#include <fusegrad/fusegrad.hpp>

namespace fg = fusegrad;

int main() {
  fg::Var<double, fg::Shape<2>> x{1.0, 2.0};
#ifdef FUSEGRAD_FAIL
  const auto [value, dx] = fg::value_and_grad(fg::sum(std::move(x) * 3.0), x);
#else
  const auto [value, dx] = fg::value_and_grad(fg::sum(x * 3.0), x);
#endif
  (void)value;
  (void)dx;
  return 0;
}
