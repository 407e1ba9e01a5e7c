// static/user_overloads_static_test.cpp -- a program's own functions and operators named as fusegrad's, called
// unqualified on fusegrad's types, keep their calls. fusegrad's overloads that diagnose mistakes (a function in the
// expression's place, cat without its axis, reshape's extents without braces, data beside an expression, w -= lr * dw)
// take what they diagnose as const volatile, by a user-defined conversion or by const reference: worse matches than
// the program's own, which argument-dependent lookup finds beside them.
// Compile-only: every check is a static_assert, so compiling this file is passing it.
#include <type_traits>
#include <vector>

#include <Eigen/Core>

#include <fusegrad/fusegrad.hpp>

namespace {

namespace fg = fusegrad;

struct user_result {};

template <class F, class... Vs>
user_result grad(const F&, const Vs&...) {
  return {};
}
template <class F, class... Vs>
user_result value_and_grad(const F&, const Vs&...) {
  return {};
}
template <class... Ts>
user_result cat(const Ts&...) {
  return {};
}
template <class X, class... Is>
user_result reshape(const X&, Is...) {
  return {};
}
template <class X>
user_result transpose(const X&, int) {
  return {};
}
using Vector3 = fg::Var<double, fg::Shape<3>>;
[[maybe_unused]] user_result matmul(const Vector3&, const Eigen::Matrix3d&) { return {}; }
[[maybe_unused]] user_result operator*(const Vector3&, const std::vector<double>&) { return {}; }
template <class D>
user_result operator-=(Vector3&, const Eigen::ArrayBase<D>&) {
  return {};
}

[[maybe_unused]] void calls_of_the_programs_own_functions() {
  Vector3 x{1.0, 2.0, 3.0};
  const Vector3 constant_x{1.0, 2.0, 3.0};
  const auto fn = [](const auto& v) { return fg::sum(v * v); };
  static_assert(std::is_same_v<decltype(grad(fn, x)), user_result>);
  static_assert(std::is_same_v<decltype(value_and_grad(fn, x)), user_result>);
  static_assert(std::is_same_v<decltype(grad(fn, constant_x)), user_result>);
  static_assert(std::is_same_v<decltype(grad(fn)), user_result>);
  std::vector<fg::Tensor> parameters;  // brings in fusegrad's functions by argument-dependent lookup
  static_assert(std::is_same_v<decltype(grad(parameters)), user_result>);
  static_assert(std::is_same_v<decltype(value_and_grad(parameters)), user_result>);
  static_assert(std::is_same_v<decltype(cat(x, x)), user_result>);
  static_assert(std::is_same_v<decltype(reshape(x, 3, 1)), user_result>);
  static_assert(std::is_same_v<decltype(transpose(x, 1)), user_result>);
  Eigen::Matrix3d m = Eigen::Matrix3d::Identity();
  static_assert(std::is_same_v<decltype(matmul(x, m)), user_result>);
  std::vector<double> v(3);
  static_assert(std::is_same_v<decltype(x * v), user_result>);
  static_assert(std::is_same_v<decltype(x -= 0.1 * Eigen::Array3d::Ones()), user_result>);
  // An expression in f's place is fusegrad's, qualified or not.
  static_assert(!std::is_same_v<decltype(fg::grad(fg::sum(x * x), x)), user_result>);
}

}  // namespace
