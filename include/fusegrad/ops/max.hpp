// ops/max.hpp -- the largest element, and its vector-Jacobian product.
#pragma once

#include <string_view>
#include <utility>

#include <Eigen/Core>

#include <fusegrad/detail/make_node.hpp>
#include <fusegrad/error.hpp>

namespace fusegrad {

/// The largest element of x.
///   value: y = max_i x_i
///   vjp:   dx_i = dy / k where x_i == y (k such ties share the gradient evenly), else 0
struct max_op {
  static constexpr std::string_view name = "max";
  static constexpr std::string_view backward_name = "MaxBackward";
  static constexpr vjp_needs needs = vjp_needs::input_and_output;
  static constexpr bool analytic = false;  // a kink: the complex step does not apply (check/gradcheck.hpp)
  static constexpr std::size_t arity = 1;

  template <ShapeLike S>
  using result_shape = Shape<>;
  static Extents result_extents(const Extents& x) {
    if (x.size() == 0) throw value_error("fusegrad::max: the maximum of an empty array is undefined");
    return Extents{};
  }

  template <class T>
  static void value(T* y, const operands<T, 1>& in) {
    y[0] = vector(in.values[0], in.extents[0]).maxCoeff();
  }
  template <std::size_t I, class T>
  static void vjp(T* dx, const T* dy, const operands<T, 1>& in, const T* y) {
    const auto x = vector(in.values[0], in.extents[0]);
    const auto ties = (x == y[0]).count();
    Eigen::Map<Eigen::Array<T, Eigen::Dynamic, 1>>(dx, x.size()) =
        (x == y[0]).template cast<T>() * (dy[0] / T(static_cast<double>(ties)));
  }

 private:
  template <class T>
  static auto vector(const T* values, const Extents& e) {
    return Eigen::Map<const Eigen::Array<T, Eigen::Dynamic, 1>>(values, static_cast<Eigen::Index>(e.size()));
  }
};
static_assert(MaterializedOp<max_op>);

/// The largest element: `fg::max(x)`; its gradient goes to the maximum (shared among ties).
template <Differentiable X>
[[nodiscard]] constexpr auto max(X&& x) {
  return detail::make_materialized<max_op>(std::forward<X>(x));
}

}  // namespace fusegrad
