// expect: error: static assertion failed: fusegrad: a view leaf of a temporary Eigen::Ref may point at a copy the Ref owns
// fail/view_of_a_temporary_ref.cpp -- a view leaf over a temporary Eigen::Ref to const, which holds a copy of an
// expression it is made from: the copy dies with the statement, so it is a compile error. A named Ref is viewed.
#include <Eigen/Core>

#include <fusegrad/fusegrad.hpp>

namespace fg = fusegrad;

int main() {
  const Eigen::VectorXd values = Eigen::VectorXd::Ones(3);
  const Eigen::Ref<const Eigen::VectorXd> named(values);
  const fg::Const<double, fg::Shape<fg::dyn>, fg::view> fine(named);  // the legal twin: a named Ref
  (void)fine;
#ifdef FUSEGRAD_FAIL
  const fg::Const<double, fg::Shape<fg::dyn>, fg::view> c(Eigen::Ref<const Eigen::VectorXd>(values * 2.0));
  (void)c;
#endif
  return 0;
}
