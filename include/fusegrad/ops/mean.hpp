// ops/mean.hpp -- mean over all or chosen axes, and its vector-Jacobian product.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <utility>

#include <fusegrad/detail/buffer.hpp>
#include <fusegrad/ops/sum.hpp>

namespace fusegrad {

/// Mean over the axes A: the sum divided by how many elements each output summed, a division
/// as PyTorch's (the mean of 49 ones is 1; times 1 / n it would be 1 - 2^-53).
///   value: y = sum_{reduced axes} x / n
///   vjp:   dx = dy / n, broadcast back over the reduced axes
template <AxesType A, keep_dims K>
struct mean_op : sum_op<A, K> {
  static constexpr std::string_view name = "mean";
  static constexpr std::string_view backward_name = "MeanBackward";
  template <class T>
  static T divisor(std::size_t n) {
    // As a signed count (below 2^59, Extents::max_size): the same double, converted in one instruction on x86-64.
    return T(static_cast<double>(static_cast<std::int64_t>(n)));
  }

  template <class T>
  static void value(T* y, const operands<T, 1>& in) {
    sum_op<A, K>::value(y, in);
    const auto n = static_cast<Eigen::Index>(sum_op<A, K>::result_extents(in.extents[0]).size());
    Eigen::Map<Eigen::Array<T, Eigen::Dynamic, 1>>(y, n) /=
        divisor<T>(in.extents[0].size() / std::max<std::size_t>(n, 1));
  }
  // dy / n once per output, then spread: the values PyTorch's dy.expand(...) / n gives, one division each.
  template <std::size_t I, class T>
  static void vjp(T* dx, const T* dy, const operands<T, 1>& in, const T* y) {
    const std::size_t outputs = sum_op<A, K>::result_extents(in.extents[0]).size();
    const T n = divisor<T>(in.extents[0].size() / std::max<std::size_t>(outputs, 1));
    detail::small_buffer<T> shares(outputs);
    for (std::size_t g = 0; g < outputs; ++g) shares[g] = dy[g] / n;
    sum_op<A, K>::template vjp<I>(dx, shares.data(), in, y);
  }
};

/// Mean of all elements, or over chosen axes: `fg::mean(x)`, `fg::mean(x, fg::axes<0>, fg::keepdims)`.
template <Differentiable X, class A = AllAxes, keep_dims K = keep_dims::no>
[[nodiscard]] constexpr auto mean(X&& x, A = {}, std::integral_constant<keep_dims, K> = {}) {
  return detail::make_materialized<mean_op<detail::checked_axes_t<A>, K>>(std::forward<X>(x));
}

}  // namespace fusegrad
