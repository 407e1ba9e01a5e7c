// ops/variance.hpp -- variance over all or chosen axes with a chosen correction, its vector-Jacobian product,
// and the standard deviation.
#pragma once

#include <cmath>
#include <complex>
#include <cstddef>
#include <string_view>
#include <type_traits>
#include <utility>

#include <fusegrad/detail/buffer.hpp>
#include <fusegrad/detail/carried_sum.hpp>
#include <fusegrad/detail/make_node.hpp>
#include <fusegrad/ops/reduction_axes.hpp>

namespace fusegrad {

/// The variance over the axes A of groups of n elements, divided by n - Correction (1: the
/// unbiased estimate, PyTorch's default; 0: the population variance):
///   value: y = sum_{reduced axes} (x - mean)^2 / (n - Correction); inf or NaN when
///          n <= Correction, as in PyTorch
///   vjp:   dx = dy * 2 (x - mean) / (n - Correction)
/// float's means and sums of squares are taken in double, as PyTorch's are: a spread past 1.8e19 would overflow
/// float's sum of squares where the variance's square root, and the gradient, are still floats.
template <AxesType A, keep_dims K, std::size_t Correction>
struct variance_op {
  static constexpr std::string_view name = "variance";
  static constexpr std::string_view backward_name = "VarBackward";
  static constexpr vjp_needs needs = vjp_needs::input;
  static constexpr std::size_t arity = 1;

  template <ShapeLike S>
  using result_shape = reduced_shape_t<S, A, K>;
  static Extents result_extents(const Extents& x) { return detail::reduced_extents<A, K>(x, "fusegrad::variance"); }

  // What the sums are taken in: double for float.
  template <class T>
  using accumulator_t = detail::carried_sum_t<T>;

  template <class T>
  static void value(T* y, const operands<T, 1>& in) {
    const Extents kept = detail::kept_extents<A>(in.extents[0], "fusegrad::variance");
    const detail::small_buffer<accumulator_t<T>> v = variances(in, kept);
    for (std::size_t g = 0; g < kept.size(); ++g) y[g] = T(v[g]);
  }
  template <std::size_t I, class T>
  static void vjp(T* dx, const T* dy, const operands<T, 1>& in, const T* /*y*/) {
    using U = accumulator_t<T>;
    const T* x = in.values[0];
    const Extents kept = detail::kept_extents<A>(in.extents[0], "fusegrad::variance");
    const detail::small_buffer<U> mean = means(in, kept);
    const U scale = U(2) / degrees_of_freedom<U>(in.extents[0], kept);
    detail::for_each_reduced_element(
        in.extents[0], kept, [&](std::size_t i, std::size_t g) { dx[i] = T(U(dy[g]) * scale * (U(x[i]) - mean[g])); });
  }

  // Each group's variance, in the accumulator type (stddev takes its square root there).
  template <class T>
  static detail::small_buffer<accumulator_t<T>> variances(const operands<T, 1>& in, const Extents& kept) {
    using U = accumulator_t<T>;
    const T* x = in.values[0];
    const detail::small_buffer<U> mean = means(in, kept);
    detail::small_buffer<U> v(kept.size(), U(0));
    detail::for_each_reduced_element(in.extents[0], kept, [&](std::size_t i, std::size_t g) {
      const U d = U(x[i]) - mean[g];
      v[g] += d * d;
    });
    const U divisor = degrees_of_freedom<U>(in.extents[0], kept);
    for (std::size_t g = 0; g < kept.size(); ++g) v[g] /= divisor;
    return v;
  }

 private:
  // Each group's mean, corrected by the mean of the deviations from it (the corrected two-pass algorithm): the sum
  // divided by n may be an ulp off (three 0.1s give 0.10000000000000002), and the deviations from it would then make
  // the variance of equal values 1e-34 rather than 0, and stddev's gradient there of order 1 rather than 0.
  template <class T>
  static detail::small_buffer<accumulator_t<T>> means(const operands<T, 1>& in, const Extents& kept) {
    using U = accumulator_t<T>;
    const T* x = in.values[0];
    detail::small_buffer<U> mean(kept.size(), U(0));
    detail::for_each_reduced_element(in.extents[0], kept, [&](std::size_t i, std::size_t g) { mean[g] += U(x[i]); });
    const U n = U(static_cast<double>(detail::group_size(in.extents[0], kept)));
    for (std::size_t g = 0; g < kept.size(); ++g) mean[g] /= n;
    detail::small_buffer<U> drift(kept.size(), U(0));
    detail::for_each_reduced_element(in.extents[0], kept,
                                     [&](std::size_t i, std::size_t g) { drift[g] += U(x[i]) - mean[g]; });
    for (std::size_t g = 0; g < kept.size(); ++g)
      if (is_finite(mean[g])) mean[g] += drift[g] / n;  // an infinite mean stays: its drift is NaN or infinite
    return mean;
  }
  template <class T>
  static bool is_finite(const T& v) {
    using std::imag, std::real;
    return std::isfinite(real(v)) && std::isfinite(imag(v));
  }
  template <class T>
  static T degrees_of_freedom(const Extents& x, const Extents& kept) {
    const std::size_t n = detail::group_size(x, kept);
    return n > Correction ? T(static_cast<double>(n - Correction)) : T(0);
  }
};

namespace detail {
// The correction, checked: taken as any constant, so that 2.0 or -1 meets this assertion rather than a failed
// conversion to size_t (no matching function, and every candidate listed); after the one error, 1.
template <auto Correction>
constexpr std::size_t checked_correction() {
  constexpr bool count = [] {
    using type = decltype(Correction);
    if constexpr (std::is_integral_v<type> && !std::is_same_v<type, bool>)
      return std::cmp_greater_equal(Correction, 0);
    else
      return false;
  }();
  static_assert(count,
                "fusegrad::variance<correction>(x, axes) and stddev: the correction is a whole number >= 0, "
                "subtracted from the count (1, the default: unbiased; 0: the population variance)");
  if constexpr (count)
    return static_cast<std::size_t>(Correction);
  else
    return 1;
}
}  // namespace detail

/// The variance: `fg::variance(x)` (unbiased, over every axis), `fg::variance(x, fg::axes<1>)`,
/// `fg::variance<0>(x, fg::axes<1>, fg::keepdims)` (correction 0: the population variance).
template <auto Correction = 1, Differentiable X, class A = AllAxes, keep_dims K = keep_dims::no>
[[nodiscard]] constexpr auto variance(X&& x, A = {}, std::integral_constant<keep_dims, K> = {}) {
  return detail::make_materialized<variance_op<detail::checked_axes_t<A>, K, detail::checked_correction<Correction>()>>(
      std::forward<X>(x));
}

/// The standard deviation over the axes A, with variance_op's correction:
///   value: y = sqrt(variance)
///   vjp:   dx = dy / (2 y) * 2 (x - mean) / (n - Correction), and 0 where y = 0 (a group of equal values), as
///          PyTorch takes it: there sqrt's slope is infinite and the variance's is 0
template <AxesType A, keep_dims K, std::size_t Correction>
struct stddev_op {
  static constexpr std::string_view name = "stddev";
  static constexpr std::string_view header = "variance";
  static constexpr std::string_view backward_name = "StdBackward";
  static constexpr vjp_needs needs = vjp_needs::input_and_output;
  static constexpr std::size_t arity = 1;
  using variance = variance_op<A, K, Correction>;

  template <ShapeLike S>
  using result_shape = reduced_shape_t<S, A, K>;
  static Extents result_extents(const Extents& x) { return detail::reduced_extents<A, K>(x, "fusegrad::stddev"); }

  template <class T>
  static void value(T* y, const operands<T, 1>& in) {
    using std::sqrt;
    const Extents kept = detail::kept_extents<A>(in.extents[0], "fusegrad::stddev");
    // In double for float: a variance past float's range can have a square root within it.
    const auto v = variance::variances(in, kept);
    for (std::size_t g = 0; g < kept.size(); ++g) y[g] = T(sqrt(v[g]));
  }
  template <std::size_t I, class T>
  static void vjp(T* dx, const T* dy, const operands<T, 1>& in, const T* y) {
    const std::size_t groups = detail::kept_extents<A>(in.extents[0], "fusegrad::stddev").size();
    detail::small_buffer<T> upstream(groups);  // of the variance
    for (std::size_t g = 0; g < groups; ++g) upstream[g] = y[g] == T(0) ? T(0) : dy[g] / (T(2) * y[g]);
    variance::template vjp<I>(dx, static_cast<const T*>(upstream.data()), in, y);
  }
};

/// The standard deviation: `fg::stddev(x)` (unbiased, over every axis), `fg::stddev<0>(x, fg::axes<1>)`.
template <auto Correction = 1, Differentiable X, class A = AllAxes, keep_dims K = keep_dims::no>
[[nodiscard]] constexpr auto stddev(X&& x, A = {}, std::integral_constant<keep_dims, K> = {}) {
  return detail::make_materialized<stddev_op<detail::checked_axes_t<A>, K, detail::checked_correction<Correction>()>>(
      std::forward<X>(x));
}

}  // namespace fusegrad
