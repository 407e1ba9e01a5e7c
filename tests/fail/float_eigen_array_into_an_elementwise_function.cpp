// expect: error: static assertion failed: fusegrad: an operand is data \(an Eigen object, std::vector
// fail/float_eigen_array_into_an_elementwise_function.cpp -- an Eigen array of floats into an element-wise function,
// its result then used beside a float var in a gradient: one error that says how to make the data a leaf. What the
// function gives after the error is of floats, so the gradient adds no second error of mixed scalar types. The legal
// twin copies the data into a Const.
#include <Eigen/Core>

#include <fusegrad/fusegrad.hpp>

namespace fg = fusegrad;

int main() {
  const Eigen::ArrayXf data = Eigen::ArrayXf::Ones(3);
  const fg::Var<float, fg::Shape<3>> x{1.0f, 2.0f, 3.0f};
#ifdef FUSEGRAD_FAIL
  const auto y = fg::exp(data) * x;
#else
  const auto y = fg::exp(fg::Const<float, fg::Shape<3>>(data)) * x;
#endif
  const auto [value, dx] = fg::value_and_grad(fg::sum(y), x);
  return value > 0 && dx(0) > 0 ? 0 : 1;
}
