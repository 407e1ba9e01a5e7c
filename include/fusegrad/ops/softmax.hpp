// ops/softmax.hpp -- softmax and log_softmax over chosen axes, composed of logsumexp, sub and exp.
#pragma once

#include <type_traits>
#include <utility>

#include <fusegrad/detail/make_node.hpp>
#include <fusegrad/ops/exp.hpp>
#include <fusegrad/ops/logsumexp.hpp>
#include <fusegrad/ops/sub.hpp>

namespace fusegrad {

namespace detail {
// x twice in one expression: an lvalue as it is (a Var by reference, an expression by value);
// a temporary copied once and moved once, so that the node never refers to a dead object.
template <class X, class F>
constexpr auto with_operand_twice(X&& x, F&& f) {
  if constexpr (std::is_lvalue_reference_v<X>) {
    return f(x, x);
  } else {
    std::remove_cvref_t<X> copy = x;
    return f(std::move(copy), std::forward<X>(x));
  }
}
}  // namespace detail

/// log(softmax(x)) over the axes A: x - logsumexp(x, A, keepdims), stable at inputs of +-1000
/// (PyTorch's log_softmax(x, dim), for any set of axes: `fg::axes<1>`, or `fg::all_axes`). The
/// axes are required, as PyTorch requires dim: over a batch of rows, the whole batch is rarely
/// meant. Its gradient is the composition's: dx = dy - softmax(x) * sum_{A} dy. x appears twice
/// in the expression: a costly x (a matmul) is best recorded as a Tensor first.
template <Differentiable X, AxesType A>
[[nodiscard]] constexpr auto log_softmax(X&& x, A axes) {
  return detail::with_operand_twice(std::forward<X>(x), [axes](auto&& a, auto&& b) {
    return std::forward<decltype(a)>(a) - logsumexp(std::forward<decltype(b)>(b), axes, keepdims);
  });
}

/// softmax over the axes A: exp(x - logsumexp(x, A, keepdims)), which sums to 1 over A and
/// never overflows (PyTorch's softmax(x, dim), for any set of axes; required, as for log_softmax).
template <Differentiable X, AxesType A>
[[nodiscard]] constexpr auto softmax(X&& x, A axes) {
  return exp(log_softmax(std::forward<X>(x), axes));
}

}  // namespace fusegrad
