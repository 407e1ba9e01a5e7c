// ops/clone.hpp -- clone: a copy of the values that stays in the graph.
#pragma once

#include <string_view>
#include <utility>

#include <fusegrad/detail/make_node.hpp>

namespace fusegrad {

/// A copy (PyTorch's clone): recorded, a tensor of its own whose gradient flows back unchanged;
/// what to write to before changing values in place that the graph still reads.
///   value: y = x
///   vjp:   dx = dy
struct clone_op {
  static constexpr std::string_view name = "clone";
  static constexpr std::string_view backward_name = "CloneBackward";
  static constexpr vjp_needs needs = vjp_needs::none;
  static auto value(const auto& x) { return x; }
  // dy passes through by reference, not copied (add_op says why)
  static const auto& vjp(const auto& dy, const auto& /*x*/, const auto& /*y*/) { return dy; }
};

/// A copy of x in the graph: `fg::Tensor c = fg::clone(t);` (or `t.clone()`).
[[nodiscard]] constexpr auto clone(Differentiable auto&& x) {
  return detail::make_unary<clone_op>(std::forward<decltype(x)>(x));
}
FUSEGRAD_DATA_OPERAND_OVERLOAD(clone)  // data (an Eigen object, a std::vector) in x's place: one error

}  // namespace fusegrad
