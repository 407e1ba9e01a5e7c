// expect: error: static assertion failed: fusegrad::Tensor: a tensor is not constructed from a std::vector
// fail/tensor_constructed_from_a_std_vector.cpp -- a Tensor constructed from a std::vector, as torch.tensor(list):
// one diagnostic that names the factories that copy or borrow the values.
#include <vector>

#include <fusegrad/fusegrad.hpp>

namespace fg = fusegrad;

int main() {
  std::vector<double> values{1.0, 2.0, 3.0};
  const fg::Tensor fine = fg::Tensor::from(values, {values.size()});  // the legal twin: a copy
  const fg::Tensor borrowed = fg::Tensor::from_blob(values.data(), {values.size()});
  (void)fine;
  (void)borrowed;
#ifdef FUSEGRAD_FAIL
  const fg::Tensor t(values);
  (void)t;
#endif
  return 0;
}
