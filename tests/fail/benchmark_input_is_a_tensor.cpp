// expect: error: static assertion failed: fusegrad::register_gradient_benchmarks\(name, fn, inputs...\): the inputs are fg::Var \(differentiated\) and fg::Const \(data\) that own their values
// fail/benchmark_input_is_a_tensor.cpp -- the benchmark helper takes owning Vars and Consts; a Tensor (or a view)
// is named in one static assertion.
#include <fusegrad/benchmark.hpp>
#include <fusegrad/fusegrad.hpp>

namespace fg = fusegrad;

int main() {
  const auto f = [](const auto& x) { return fg::sum(x * x); };
  const fg::Var<double, fg::Shape<3>> x{1.0, 2.0, 3.0};
  fg::register_gradient_benchmarks("fine", f, x);  // the legal twin
#ifdef FUSEGRAD_FAIL
  const fg::Tensor t = fg::Tensor::from({1.0, 2.0, 3.0}, {3}).requires_grad_();
  fg::register_gradient_benchmarks("tensor", f, t);
#endif
  return 0;
}
