// ops/negate.hpp -- element-wise negate and its vector-Jacobian product.
#pragma once

#include <string_view>
#include <type_traits>
#include <utility>

#include <fusegrad/detail/make_node.hpp>
#include <fusegrad/detail/negated.hpp>

namespace fusegrad {

/// Element-wise negate.
///   value: y = -x
///   vjp:   dx = -dy
struct negate_op {
  static constexpr std::string_view name = "negate";
  static constexpr std::string_view backward_name = "NegBackward";
  static constexpr vjp_needs needs = vjp_needs::none;
  static auto value(const auto& x) { return detail::negated(x); }  // -(+0) is -0 in every lane
  static auto vjp(const auto& dy, const auto& /*x*/, const auto& /*y*/) { return detail::negated(dy); }
};

/// Negation: y = -x.
template <Differentiable X>
[[nodiscard]] constexpr auto operator-(X&& x) {
  return detail::make_unary<negate_op>(std::forward<X>(x));
}

}  // namespace fusegrad
