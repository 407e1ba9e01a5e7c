// expect: error: static assertion failed: fusegrad::gradcheck\(fn, vars...\): fn must return the expression
// fail/gradcheck_fn_returns_a_number.cpp -- a gradcheck fn that evaluates its expression (fg::eval) and returns the
// number: one error, and nothing of the check compiled after it. The legal twin returns the expression.
#include <fusegrad/check/gradcheck.hpp>
#include <fusegrad/fusegrad.hpp>

namespace fg = fusegrad;

int main() {
  const fg::Var<double, fg::Shape<3>> x{1.0, 2.0, 3.0};
#ifdef FUSEGRAD_FAIL
  const auto report = fg::gradcheck([](const auto& v) { return fg::eval(fg::sum(v * v)); }, x);
#else
  const auto report = fg::gradcheck([](const auto& v) { return fg::sum(v * v); }, x);
#endif
  return report.passed ? 0 : 1;
}
