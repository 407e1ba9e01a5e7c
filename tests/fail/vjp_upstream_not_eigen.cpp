// expect: error: static assertion failed: fusegrad::vjp\(f, upstream, vars...\): upstream must be a number or an Eigen
// fail/vjp_upstream_not_eigen.cpp -- vjp with an upstream that is neither a number nor an Eigen object: one error
// saying what upstream may be.
#include <vector>

#include <Eigen/Core>

#include <fusegrad/fusegrad.hpp>

namespace fg = fusegrad;

int main() {
  const fg::Var<double, fg::Shape<3>> x{1.0, 2.0, 3.0};
  const auto fine = fg::vjp(fg::sin(x), Eigen::Vector3d(1.0, 2.0, 3.0), x);  // the legal twin: an Eigen vector
  (void)fine;
#ifdef FUSEGRAD_FAIL
  const auto bad = fg::vjp(fg::sin(x), std::vector<double>{1.0, 2.0, 3.0}, x);
  (void)bad;
#endif
  return 0;
}
