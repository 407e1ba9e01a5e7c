// ops/extremum.hpp -- the largest or smallest element over all or chosen axes: one rule for max and min.
#pragma once

#include <cmath>
#include <cstddef>
#include <string>
#include <string_view>

#include <fusegrad/detail/buffer.hpp>
#include <fusegrad/detail/make_node.hpp>
#include <fusegrad/error.hpp>
#include <fusegrad/ops/reduction_axes.hpp>

namespace fusegrad::detail {

// An extremum over the axes A, in the order Order gives (ops/max.hpp, ops/min.hpp):
//   value: y_g = the first element of group g that no other element precedes in Order; NaN
//          when the group holds one (PyTorch propagates NaN)
//   vjp:   over one axis, dy to the element the forward picked, the first in row-major order
//          (torch.max(x, dim), whose index argmax returns); over several axes or all of them,
//          dy shared evenly among the elements equal to y_g (torch.amax, torch.max(x)); 0 elsewhere
template <class Order, AxesType A, keep_dims K>
struct extremum_op : Order {
  static constexpr bool one_axis = [] {
    if constexpr (std::is_same_v<A, AllAxes>)
      return false;
    else
      return A::values.size() == 1;
  }();
  static constexpr vjp_needs needs = vjp_needs::input_and_output;
  static constexpr bool analytic = false;  // a kink: the complex step does not apply (check/gradcheck.hpp)
  static constexpr std::size_t arity = 1;

  template <ShapeLike S>
  using result_shape = reduced_shape_t<S, A, K>;
  static Extents result_extents(const Extents& x) {
    const std::string what = "fusegrad::" + std::string(Order::name);
    // Over an axis of extent 0 it is undefined, even where the result is empty too, as in PyTorch.
    const auto mask = reduction_mask<A>(x, what.c_str());
    for (std::size_t r = 0; r < x.rank(); ++r)
      if (mask[r] && x[r] == 0)
        throw value_error(what + ": the " + std::string(Order::noun) + " over an empty axis is undefined (axis " +
                          std::to_string(r) + " of shape " + x.to_string() + ")");
    return reduced_extents<A, K>(x, what.c_str());
  }

  template <class T>
  static void value(T* y, const operands<T, 1>& in) {
    const T* x = in.values[0];
    const Extents kept = kept_extents<A>(in.extents[0], Order::name.data());
    std::fill(y, y + kept.size(), Order::template start<T>());
    for_each_reduced_element(in.extents[0], kept, [&](std::size_t i, std::size_t g) {
      if (replaces(x[i], y[g])) [[unlikely]]
        y[g] = x[i];
    });
  }
  // Whether `candidate` becomes a group's extremum in place of `current`: one that precedes
  // it in Order, or a NaN, which then stays (argmax and argmin follow the same rule).
  template <class T>
  static bool replaces(T candidate, T current) {
    return !std::isnan(current) && (Order::before(candidate, current) || std::isnan(candidate));
  }

  template <std::size_t I, class T>
  static void vjp(T* dx, const T* dy, const operands<T, 1>& in, const T* y) {
    const T* x = in.values[0];
    const Extents& extents = in.extents[0];
    const Extents kept = kept_extents<A>(extents, Order::name.data());
    const auto picks = [&](std::size_t i, std::size_t g) {
      return x[i] == y[g] || (std::isnan(x[i]) && std::isnan(y[g]));
    };
    std::fill(dx, dx + extents.size(), T(0));
    if constexpr (one_axis) {
      small_buffer<unsigned char> taken(kept.size(), 0);
      for_each_reduced_element(extents, kept, [&](std::size_t i, std::size_t g) {
        if (!taken[g] && picks(i, g)) {
          dx[i] = dy[g];
          taken[g] = 1;
        }
      });
    } else {
      small_buffer<std::size_t> ties(kept.size(), 0);  // counted, not added up in T: float stops at 2^24
      for_each_reduced_element(extents, kept, [&](std::size_t i, std::size_t g) {
        if (picks(i, g)) ++ties[g];
      });
      for_each_reduced_element(extents, kept, [&](std::size_t i, std::size_t g) {
        if (picks(i, g)) dx[i] = dy[g] / T(static_cast<double>(ties[g]));
      });
    }
  }
};

}  // namespace fusegrad::detail
