// ops/log_softmax.hpp -- log(softmax(x)) over chosen axes, shifted by each group's maximum, and its vector-Jacobian
// product.
#pragma once

#include <cmath>
#include <complex>
#include <cstddef>
#include <limits>
#include <string_view>
#include <type_traits>
#include <utility>

#include <fusegrad/detail/buffer.hpp>
#include <fusegrad/detail/carried_sum.hpp>
#include <fusegrad/detail/make_node.hpp>
#include <fusegrad/ops/reduction_axes.hpp>

namespace fusegrad {

/// log(softmax(x)) over the axes A (PyTorch's log_softmax(x, dim), for any set of axes), computed as PyTorch does:
///   value: y = (x - m) - log(sum_{A} exp(x - m)), m the group's largest element. x - m is exact where the two are
///          close, so y keeps its precision whatever the size of x; x - logsumexp(x) would lose about |m| * eps to
///          rounding m + log(sum). A group holding NaN or +inf, or only -inf, is NaN throughout, as in PyTorch.
///   vjp:   dx = dy - exp(y) * sum_{A} dy
/// ForSoftmax: the op inside softmax (exp of it), whose errors name softmax, the function called.
template <AxesType A, bool ForSoftmax = false>
struct log_softmax_op {
  static constexpr const char* caller = ForSoftmax ? "fusegrad::softmax" : "fusegrad::log_softmax";
  static constexpr std::string_view name = "log_softmax";
  static constexpr std::string_view backward_name = "LogSoftmaxBackward";
  static constexpr vjp_needs needs = vjp_needs::input_and_output;
  static constexpr std::size_t arity = 1;

  // The shape of x; reduced_shape_t checks the axes against a static rank (a compile error).
  template <ShapeLike S>
  using result_shape = std::conditional_t<true, S, reduced_shape_t<S, A, keep_dims::yes>>;
  static Extents result_extents(const Extents& x) {
    (void)detail::kept_extents<A>(x, caller);  // throws for an axis past the rank
    return x;
  }

  template <class T>
  static void value(T* y, const operands<T, 1>& in) {
    using std::exp, std::log, std::real;
    using R = decltype(real(T()));
    const T* x = in.values[0];
    const Extents kept = detail::kept_extents<A>(in.extents[0], caller);
    if (in.extents[0].size() == 0) return;  // no values to write, however many groups ((1e8, 0) over axis 1)
    // Each group's largest real part (NaN where the group holds one). Any constant shift gives the same value; this
    // one keeps exp() in range, and is a constant under the complex step too (check/gradcheck.hpp).
    detail::small_buffer<R> shift(kept.size(), -std::numeric_limits<R>::infinity());
    detail::for_each_reduced_element(in.extents[0], kept, [&](std::size_t i, std::size_t g) {
      const R v = real(x[i]);
      if (!std::isnan(shift[g]) && (v > shift[g] || std::isnan(v))) shift[g] = v;
    });
    using C = detail::carried_sum_t<T>;  // double for float
    detail::small_buffer<C> sums(kept.size(), C(0));
    detail::for_each_reduced_element(in.extents[0], kept,
                                     [&](std::size_t i, std::size_t g) { sums[g] += C(exp(x[i] - shift[g])); });
    for (std::size_t g = 0; g < kept.size(); ++g) sums[g] = log(sums[g]);
    detail::for_each_reduced_element(in.extents[0], kept,
                                     [&](std::size_t i, std::size_t g) { y[i] = (x[i] - shift[g]) - T(sums[g]); });
  }
  template <std::size_t I, class T>
  static void vjp(T* dx, const T* dy, const operands<T, 1>& in, const T* y) {
    using std::exp;
    const Extents kept = detail::kept_extents<A>(in.extents[0], caller);
    using C = detail::carried_sum_t<T>;  // double for float
    detail::small_buffer<C> sums(kept.size(), C(0));
    detail::for_each_reduced_element(in.extents[0], kept, [&](std::size_t i, std::size_t g) { sums[g] += C(dy[i]); });
    detail::for_each_reduced_element(in.extents[0], kept,
                                     [&](std::size_t i, std::size_t g) { dx[i] = dy[i] - exp(y[i]) * T(sums[g]); });
  }
};

/// log(softmax(x)) over the axes A: `fg::log_softmax(x, fg::axes<1>)`, or `fg::all_axes`. The axes are required, as
/// PyTorch requires dim: over a batch of rows, the whole batch is rarely meant.
template <Differentiable X, class A>
[[nodiscard]] constexpr auto log_softmax(X&& x, A) {
  return detail::make_materialized<log_softmax_op<detail::checked_axes_t<A>>>(std::forward<X>(x));
}

}  // namespace fusegrad
