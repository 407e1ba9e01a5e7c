// gradcheck.cpp -- checking a gradient: fg::gradcheck against the complex step and central differences, in both
// layers, and what its report says when a gradient is wrong.
#include <cstdio>
#include <iostream>
#include <string_view>

#include <fusegrad/check/gradcheck.hpp>
#include <fusegrad/fusegrad.hpp>

namespace fg = fusegrad;

// A user's op whose VJP has a sign error: d/dx cos(x) is -sin(x), it says +sin(x).
struct my_cos_op {
  static constexpr std::string_view name = "my_cos";
  static constexpr std::string_view backward_name = "MyCosBackward";
  static constexpr fg::vjp_needs needs = fg::vjp_needs::input;
  static auto value(const auto& x) { return x.cos(); }
  static auto vjp(const auto& dy, const auto& x, const auto& /*y*/) { return dy * x.sin(); }
};
static_assert(fg::UnaryOp<my_cos_op>);
constexpr auto my_cos(fg::Differentiable auto&& x) {
  return fg::detail::make_unary<my_cos_op>(std::forward<decltype(x)>(x));
}

int main() {
  // Written for any scalar type, so that gradcheck can run it in double and std::complex<double>.
  const auto loss = [](const auto& w, const auto& b) { return fg::mean(fg::square(fg::tanh(w * 0.5 + b) - 0.25)); };

  // The static layer: Vars.
  const fg::Var<double, fg::Shape<2, 3>> w{0.1, -0.4, 0.9, 1.2, -1.5, 0.3};
  const fg::Var<double, fg::Shape<>> b(0.2);
  const fg::GradcheckReport on_vars = fg::gradcheck(loss, w, b);
  std::cout << on_vars << "\n\n";

  // The tape: the same function of Tensors (run on copies: w_t and its gradient stay as they are).
  const fg::Tensor w_t = fg::Tensor::from({0.1, -0.4, 0.9, 1.2, -1.5, 0.3}, {2, 3});
  const fg::Tensor b_t = fg::Tensor::scalar(0.2);
  const fg::GradcheckReport on_tensors = fg::gradcheck(loss, w_t, b_t);
  std::cout << on_tensors << "\n\n";

  // A function with a kink: the complex step does not apply, central differences do.
  const fg::GradcheckReport kinked = fg::gradcheck([](const auto& v) { return fg::sum(fg::relu(v) * v); }, w);
  std::cout << kinked << "\n\n";

  // A wrong VJP: the report names the element furthest off and the numbers side by side.
  const fg::GradcheckReport wrong = fg::gradcheck([](const auto& v) { return fg::sum(my_cos(v)); }, w);
  std::cout << wrong << "\n";

  const bool ok = on_vars && on_tensors && kinked && !wrong;
  std::printf("\n%s\n", ok ? "as expected" : "UNEXPECTED");
  return ok ? 0 : 1;
}
