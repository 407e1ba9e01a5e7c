// expect: error: static assertion failed: fusegrad: a view leaf reads values of its own scalar type, and this Eigen object holds another
// fail/view_of_another_scalar_type.cpp -- a double view leaf over float memory (an Eigen vector or a Map): one error
// that says to declare the leaf with the object's scalar type.
#include <Eigen/Core>

#include <fusegrad/fusegrad.hpp>

namespace fg = fusegrad;

int main() {
  Eigen::VectorXf values = Eigen::VectorXf::Ones(3);
  const Eigen::Map<const Eigen::VectorXf> mapped(values.data(), 3);
  const fg::Const<float, fg::Shape<fg::dyn>, fg::view> fine(mapped);  // the legal twin: the map's own scalar type
  (void)fine;
#ifdef FUSEGRAD_FAIL
  const fg::Const<double, fg::Shape<fg::dyn>, fg::view> c(mapped);
  (void)c;
#endif
  return 0;
}
