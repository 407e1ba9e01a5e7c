// static/user_overloads_static_test.cpp -- a program's own functions named grad and value_and_grad, called unqualified
// on fusegrad's Vars, keep their calls: fusegrad's overloads that diagnose a function in the expression's place take
// the vars as const volatile, a worse match than the program's by reference, which argument-dependent lookup finds
// beside them.
#include <type_traits>

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

[[maybe_unused]] void calls_of_the_programs_own_functions() {
  fg::Var<double, fg::Shape<3>> x{1.0, 2.0, 3.0};
  const fg::Var<double, fg::Shape<3>> constant_x{1.0, 2.0, 3.0};
  const auto fn = [](const auto& v) { return fg::sum(v * v); };
  static_assert(std::is_same_v<decltype(grad(fn, x)), user_result>);
  static_assert(std::is_same_v<decltype(value_and_grad(fn, x)), user_result>);
  static_assert(std::is_same_v<decltype(grad(fn, constant_x)), user_result>);
  // An expression in f's place is fusegrad's, qualified or not.
  static_assert(!std::is_same_v<decltype(fg::grad(fg::sum(x * x), x)), user_result>);
}

}  // namespace
