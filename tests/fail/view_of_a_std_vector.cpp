// expect: error: static assertion failed: fusegrad::Var/Const: a view leaf takes a pointer and extents, not a std::vector
// fail/view_of_a_std_vector.cpp -- a view leaf given a std::vector: one diagnostic that shows the pointer and extents
// it takes.
#include <vector>

#include <fusegrad/fusegrad.hpp>

namespace fg = fusegrad;

int main() {
  const std::vector<double> values{1.0, 2.0, 3.0};
  const fg::Var<double, fg::Shape<fg::dyn>, fg::view> fine(values.data(), {values.size()});  // the legal twin
  (void)fine;
#ifdef FUSEGRAD_FAIL
  const fg::Var<double, fg::Shape<fg::dyn>, fg::view> x(values);
  (void)x;
#endif
  return 0;
}
