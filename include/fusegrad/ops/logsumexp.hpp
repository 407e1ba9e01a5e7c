// ops/logsumexp.hpp -- log(sum(exp(x))) over all or chosen axes, without overflow, and its vector-Jacobian product.
#pragma once

#include <cmath>
#include <complex>
#include <cstddef>
#include <limits>
#include <string_view>
#include <utility>

#include <fusegrad/detail/buffer.hpp>
#include <fusegrad/detail/carried_sum.hpp>
#include <fusegrad/detail/make_node.hpp>
#include <fusegrad/ops/reduction_axes.hpp>

namespace fusegrad {

/// log(sum(exp(x))) over the axes A, computed as m + log(sum(exp(x - m))) with m the group's
/// maximum, so that inputs of +-1000 neither overflow nor vanish:
///   value: y = m + log(sum_{reduced axes} exp(x - m)); y = m when m is infinite (all -inf
///          gives -inf, any +inf gives +inf, as PyTorch)
///   vjp:   dx = dy * exp(x - y), the softmax of x over the reduced axes
template <AxesType A, keep_dims K>
struct logsumexp_op {
  static constexpr std::string_view name = "logsumexp";
  static constexpr std::string_view backward_name = "LogsumexpBackward";
  static constexpr vjp_needs needs = vjp_needs::input_and_output;
  static constexpr std::size_t arity = 1;

  template <ShapeLike S>
  using result_shape = reduced_shape_t<S, A, K>;
  static Extents result_extents(const Extents& x) { return detail::reduced_extents<A, K>(x, "fusegrad::logsumexp"); }

  // Any constant shift gives the same value; the largest real part keeps exp() in range, and
  // is a constant under the complex step too (check/gradcheck.hpp), so logsumexp stays analytic.
  template <class T>
  static void value(T* y, const operands<T, 1>& in) {
    using std::exp, std::log, std::real;
    const T* x = in.values[0];
    const Extents kept = detail::kept_extents<A>(in.extents[0], "fusegrad::logsumexp");
    std::fill(y, y + kept.size(), T(-std::numeric_limits<decltype(real(T()))>::infinity()));
    detail::for_each_reduced_element(in.extents[0], kept, [&](std::size_t i, std::size_t g) {
      if (!std::isnan(real(y[g])) && (real(x[i]) > real(y[g]) || std::isnan(real(x[i])))) y[g] = T(real(x[i]));
    });
    using C = detail::carried_sum_t<T>;  // double for float
    detail::small_buffer<C> sums(kept.size(), C(0));
    detail::for_each_reduced_element(in.extents[0], kept, [&](std::size_t i, std::size_t g) {
      if (std::isfinite(real(y[g]))) sums[g] += C(exp(x[i] - y[g]));
    });
    for (std::size_t g = 0; g < kept.size(); ++g)
      if (std::isfinite(real(y[g]))) y[g] += T(log(sums[g]));
  }
  template <std::size_t I, class T>
  static void vjp(T* dx, const T* dy, const operands<T, 1>& in, const T* y) {
    using std::exp;
    const T* x = in.values[0];
    const Extents kept = detail::kept_extents<A>(in.extents[0], "fusegrad::logsumexp");
    detail::for_each_reduced_element(in.extents[0], kept,
                                     [&](std::size_t i, std::size_t g) { dx[i] = dy[g] * exp(x[i] - y[g]); });
  }
};

/// log(sum(exp(x))), stable: `fg::logsumexp(x)`, `fg::logsumexp(x, fg::axes<1>, fg::keepdims)`.
template <Differentiable X, class A = AllAxes, keep_dims K = keep_dims::no>
[[nodiscard]] constexpr auto logsumexp(X&& x, A = {}, std::integral_constant<keep_dims, K> = {}) {
  return detail::make_materialized<logsumexp_op<detail::checked_axes_t<A>, K>>(std::forward<X>(x));
}

}  // namespace fusegrad
