// ops/prod.hpp -- the product over all or chosen axes, right where elements are zero, and its vector-Jacobian product.
#pragma once

#include <cstddef>
#include <string_view>
#include <utility>

#include <fusegrad/detail/buffer.hpp>
#include <fusegrad/detail/make_node.hpp>
#include <fusegrad/ops/reduction_axes.hpp>

namespace fusegrad {

/// The product over the axes A:
///   value: y = prod_{reduced axes} x
///   vjp:   dx_i = dy * prod_{j != i} x_j, computed as PyTorch does: dy * (y / x_i) when the
///          group holds no zero; when it holds one, dy * (product of the others) at the zero
///          and 0 elsewhere; when it holds two or more, 0 everywhere
template <AxesType A, keep_dims K>
struct prod_op {
  static constexpr std::string_view name = "prod";
  static constexpr std::string_view backward_name = "ProdBackward";
  static constexpr vjp_needs needs = vjp_needs::input_and_output;
  static constexpr std::size_t arity = 1;

  template <ShapeLike S>
  using result_shape = reduced_shape_t<S, A, K>;
  static Extents result_extents(const Extents& x) { return detail::reduced_extents<A, K>(x, "fusegrad::prod"); }

  template <class T>
  static void value(T* y, const operands<T, 1>& in) {
    const Extents kept = detail::kept_extents<A>(in.extents[0], "fusegrad::prod");
    std::fill(y, y + kept.size(), T(1));
    detail::for_each_reduced_element(in.extents[0], kept,
                                     [&](std::size_t i, std::size_t g) { y[g] *= in.values[0][i]; });
  }
  template <std::size_t I, class T>
  static void vjp(T* dx, const T* dy, const operands<T, 1>& in, const T* y) {
    const T* x = in.values[0];
    const Extents kept = detail::kept_extents<A>(in.extents[0], "fusegrad::prod");
    // Per group: how many zeros, and the product of the other elements.
    detail::small_buffer<std::size_t> zeros(kept.size(), 0);
    detail::small_buffer<T> nonzero_product(kept.size(), T(1));
    detail::for_each_reduced_element(in.extents[0], kept, [&](std::size_t i, std::size_t g) {
      if (x[i] == T(0))
        ++zeros[g];
      else
        nonzero_product[g] *= x[i];
    });
    detail::for_each_reduced_element(in.extents[0], kept, [&](std::size_t i, std::size_t g) {
      if (zeros[g] == 0)
        dx[i] = dy[g] * (y[g] / x[i]);  // y / x first: dy * y alone may overflow
      else if (zeros[g] == 1 && x[i] == T(0))
        dx[i] = dy[g] * nonzero_product[g];
      else
        dx[i] = T(0);
    });
  }
};

/// The product: `fg::prod(x)`, `fg::prod(x, fg::axes<1>)`, `fg::prod(x, fg::axes<1>, fg::keepdims)`.
template <Differentiable X, class A = AllAxes, keep_dims K = keep_dims::no>
[[nodiscard]] constexpr auto prod(X&& x, A = {}, std::integral_constant<keep_dims, K> = {}) {
  return detail::make_materialized<prod_op<detail::checked_axes_t<A>, K>>(std::forward<X>(x));
}

}  // namespace fusegrad
