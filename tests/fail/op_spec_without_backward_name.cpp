// expect: op_spec_without_backward_name\.cpp:[0-9]+:[0-9]+: error: static assertion failed
// also: required expression [^ ]*Op::backward_name[^ ]* is invalid
// fail/op_spec_without_backward_name.cpp -- an op spec that forgets its tape node's name fails at its own
// static_assert, naming the missing member, not inside the tape.
#include <string_view>

#include <fusegrad/fusegrad.hpp>

namespace fg = fusegrad;

struct cube_op {
  static constexpr std::string_view name = "cube";
#ifndef FUSEGRAD_FAIL
  static constexpr std::string_view backward_name = "CubeBackward";
#endif
  static constexpr fg::vjp_needs needs = fg::vjp_needs::input;
  static auto value(const auto& x) { return x * x * x; }
  static auto vjp(const auto& dy, const auto& x, const auto& /*y*/) { return dy * 3 * x * x; }
};
static_assert(fg::UnaryOp<cube_op>);

int main() { return 0; }
