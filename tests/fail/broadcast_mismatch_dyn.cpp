// expect: error: .*shapes_cannot_be_broadcast<.*"\(dyn, 2\) and \(3\)"
// fail/broadcast_mismatch_dyn.cpp -- (dyn, 2) and (3) clash on the last axis; the error prints the dyn extent as "dyn".
#include <fusegrad/fusegrad.hpp>

namespace fg = fusegrad;

int main() {
  fg::Var<double, fg::Shape<fg::dyn, 2>> x({4, 2});
  fg::Var<double, fg::Shape<2>> fits;
  const auto fine = x * fits;  // the legal twin: (dyn, 2) * (2) -> (dyn, 2)
  (void)fine;
#ifdef FUSEGRAD_FAIL
  fg::Var<double, fg::Shape<3>> y;
  const auto clash = x * y;  // 2 vs 3 on the last axis, whatever the run-time rows
  (void)clash;
#endif
  return 0;
}
