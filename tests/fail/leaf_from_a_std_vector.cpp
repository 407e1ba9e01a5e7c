// expect: error: static assertion failed: fusegrad::Var/Const: a leaf is not built from a std::vector or another range
// fail/leaf_from_a_std_vector.cpp -- an owning Var given a std::vector, as torch.tensor(list) takes one: one diagnostic
// that shows how to copy the values in, or view them (without it: no matching constructor, every candidate listed).
#include <algorithm>
#include <vector>

#include <fusegrad/fusegrad.hpp>

namespace fg = fusegrad;

int main() {
  const std::vector<double> values{1.0, 2.0, 3.0};
  fg::Var<double, fg::Shape<3>> fine;  // the legal twin: zeros, then the values copied in
  std::ranges::copy(values, fine.data());
  fg::Var<double, fg::Shape<fg::dyn>> sized({values.size()});  // the same for a run-time extent
  std::ranges::copy(values, sized.data());
  (void)fine;
  (void)sized;
#ifdef FUSEGRAD_FAIL
  const fg::Var<double, fg::Shape<3>> x(values);
  (void)x;
#endif
  return 0;
}
