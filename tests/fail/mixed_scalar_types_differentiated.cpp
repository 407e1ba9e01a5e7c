// expect: error: .*operands_have_different_scalar_types<double, float>
// fail/mixed_scalar_types_differentiated.cpp -- double times float, evaluated and differentiated: the one error of
// mixed scalar types, and none from the code that would evaluate them.
#include <tuple>

#include <Eigen/Core>

#include <fusegrad/static.hpp>

namespace fg = fusegrad;

int main() {
  fg::Var<double, fg::Shape<3>> a{1.0, 2.0, 3.0};
  fg::Var<double, fg::Shape<3>> same{4.0, 5.0, 6.0};
  Eigen::Array3d da;
  [[maybe_unused]] const auto fine = fg::value_and_grad(fg::sum(a * same), a);  // the legal twin
#ifdef FUSEGRAD_FAIL
  fg::Var<float, fg::Shape<3>> b{4.0f, 5.0f, 6.0f};  // declare both with the same scalar type
  [[maybe_unused]] const auto value = fg::eval(fg::mean(a * b));
  [[maybe_unused]] const auto [loss, grad_a] = fg::value_and_grad(fg::sum(a * b), a);
  [[maybe_unused]] const auto [product, through_vjp] = fg::vjp(a * b, Eigen::Array3d::Ones().eval(), a);
  [[maybe_unused]] const double into = fg::value_and_grad_into(fg::sum(a * b), std::tie(da), a);
  // With respect to the float var too: still the one error, and the gradients take their uses.
  [[maybe_unused]] const auto [of_b, grad_b] = fg::value_and_grad(fg::sum(a * b), b);
  [[maybe_unused]] const auto [products, vjp_b] = fg::vjp(a * b, 1.0, b);
  [[maybe_unused]] const double used = grad_b(0) + grad_b.sum() + grad_a.sum() + vjp_b(1);
#endif
  return 0;
}
