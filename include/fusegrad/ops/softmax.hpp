// ops/softmax.hpp -- softmax over chosen axes, composed of log_softmax and exp.
#pragma once

#include <utility>

#include <fusegrad/concepts.hpp>
#include <fusegrad/ops/exp.hpp>
#include <fusegrad/ops/log_softmax.hpp>

namespace fusegrad {

/// softmax over the axes A: exp(log_softmax(x, A)), which sums to 1 over A and never overflows (PyTorch's
/// softmax(x, dim), for any set of axes; required, as for log_softmax).
template <Differentiable X, class A>
[[nodiscard]] constexpr auto softmax(X&& x, A /*axes*/) {
  return exp(detail::make_materialized<log_softmax_op<detail::checked_axes_t<A>, true>>(std::forward<X>(x)));
}

}  // namespace fusegrad
