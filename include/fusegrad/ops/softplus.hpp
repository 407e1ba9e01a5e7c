// ops/softplus.hpp -- element-wise softplus, log(1 + exp(x)), without overflow, and its vector-Jacobian product.
#pragma once

#include <string_view>
#include <type_traits>
#include <utility>

#include <fusegrad/detail/make_node.hpp>
#include <fusegrad/detail/vector_math.hpp>

namespace fusegrad {

/// Element-wise softplus, computed in a form that never overflows.
///   value: y = log(1 + exp(x)) = max(x, 0) + log1p(exp(-|x|))
///   vjp:   dx = dy * sigmoid(x) = dy * -expm1(-y)
/// The slope is taken from y, whose digits it keeps where sigmoid(x) = 1 / (1 + exp(-x)) would overflow to 0 (below
/// x = -709.8 in double, where y is a subnormal number and the slope equals it, as PyTorch's is).
/// At x = 1000 the value is 1000 and the gradient 1; at x = -1000, 0 and 0. PyTorch's
/// softplus returns x itself above a threshold (20 by default); this form equals
/// log(1 + exp(x)) to rounding everywhere, which differs from that by at most 2e-9.
struct softplus_op {
  static constexpr std::string_view name = "softplus";
  static constexpr std::string_view backward_name = "SoftplusBackward";
  static constexpr vjp_needs needs = vjp_needs::output;
  static constexpr bool analytic = false;  // real only: its overflow-free form uses |x| and max
  static auto value(const auto& x) {
    using T = typename std::decay_t<decltype(x)>::Scalar;
    static_assert(std::is_floating_point_v<T>,
                  "fusegrad::softplus: real scalars only (its overflow-free form uses |x| and max, which have no "
                  "complex derivative)");
    return x.max(T(0)) + math::log1p(math::exp(-x.abs()));
  }
  static auto vjp(const auto& dy, const auto& /*x*/, const auto& y) { return dy * -math::expm1(-y); }
};

/// Element-wise softplus: y = log(1 + exp(x)), finite for every finite x.
[[nodiscard]] constexpr auto softplus(Differentiable auto&& x) {
  return detail::make_unary<softplus_op>(std::forward<decltype(x)>(x));
}
FUSEGRAD_DATA_OPERAND_OVERLOAD(softplus)  // data (an Eigen object, a std::vector) in x's place: one error

}  // namespace fusegrad
