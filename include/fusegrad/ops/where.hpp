// ops/where.hpp -- where(condition, a, b): a where the condition holds, b elsewhere, each side's gradient its own.
#pragma once

#include <algorithm>
#include <cstddef>
#include <string_view>
#include <utility>

#include <fusegrad/detail/buffer.hpp>
#include <fusegrad/detail/make_node.hpp>
#include <fusegrad/shape/any_shape.hpp>
#include <fusegrad/shape/broadcast.hpp>
#include <fusegrad/shape/reduce_broadcast.hpp>

namespace fusegrad {

/// a where the condition is not 0, b where it is, with NumPy broadcasting across all three
/// (PyTorch's where). The unchosen side's value never reaches the result, and its gradient there
/// is 0; but that 0 still passes through the VJPs below it, as in PyTorch: where(x > 0, sqrt(x),
/// 0) at x = 0 gives 0 * inf = NaN for x. Guard the operand too: where(x > 0, sqrt(where(x > 0, x,
/// 1)), 0).
///   value: y = c != 0 ? a : b
///   vjp:   da = dy where c != 0, else 0; db = dy where c == 0, else 0 (each summed back
///          over its broadcast axes); the condition takes none (a mask is piecewise constant)
struct where_op {
  static constexpr std::string_view name = "where";
  static constexpr std::string_view backward_name = "WhereBackward";
  static constexpr vjp_needs needs = vjp_needs::input;  // the condition, which routes dy
  static constexpr bool analytic = false;               // a selection by a mask: checked by central differences
  static constexpr std::size_t arity = 3;

  template <ShapeLike C, ShapeLike A, ShapeLike B>
  using result_shape = common_shape_t<common_shape_t<C, A>, B>;
  static Extents result_extents(const Extents& c, const Extents& a, const Extents& b) {
    return broadcast(broadcast(c, a), b);
  }

  template <class T>
  static void value(T* y, const operands<T, 3>& in) {
    const Extents out = result_extents(in.extents[0], in.extents[1], in.extents[2]);
    const broadcast_operand<T> c(in, 0, out), a(in, 1, out), b(in, 2, out);
    for (std::size_t i = 0; i < out.size(); ++i) y[i] = c[i] != T(0) ? a[i] : b[i];
  }
  template <std::size_t I, class T>
  static void vjp(T* dx, const T* dy, const operands<T, 3>& in, const T* /*y*/) {
    const Extents& mine = in.extents[I];
    if constexpr (I == 0) {
      std::fill_n(dx, mine.size(), T(0));
    } else {
      const Extents out = result_extents(in.extents[0], in.extents[1], in.extents[2]);
      const broadcast_operand<T> c(in, 0, out);
      const bool chosen_when = I == 1;  // a is chosen where c != 0, b where c == 0
      if (mine == out) {
        for (std::size_t i = 0; i < out.size(); ++i) dx[i] = (c[i] != T(0)) == chosen_when ? dy[i] : T(0);
        return;
      }
      detail::small_buffer<T> masked(out.size());
      for (std::size_t i = 0; i < out.size(); ++i) masked[i] = (c[i] != T(0)) == chosen_when ? dy[i] : T(0);
      std::fill_n(dx, mine.size(), T(0));
      reduce_broadcast_into(dx, masked.data(), out, mine);
    }
  }

 private:
  // Operand k's values in the result's extents: its own memory when it has them, a
  // broadcast copy otherwise.
  template <class T>
  struct broadcast_operand {
    detail::small_buffer<T> copy;
    const T* values;
    broadcast_operand(const operands<T, 3>& in, std::size_t k, const Extents& out) : values(in.values[k]) {
      if (in.extents[k] == out) return;
      copy.resize(out.size());
      broadcast_into(copy.data(), in.values[k], in.extents[k], out);
      values = copy.data();
    }
    const T& operator[](std::size_t i) const { return values[i]; }
  };
};

/// `fg::where(x > 0, x, 0.01 * x)`: a where the condition is not 0, b elsewhere; gradients go
/// to the chosen side only. Any of the three may broadcast; a and b may be plain numbers.
template <Differentiable C, class A, class B>
[[nodiscard]] constexpr auto where(C&& condition, A&& a, B&& b) {
  return detail::make_materialized<where_op>(std::forward<C>(condition), detail::as_operand<C>(std::forward<A>(a)),
                                             detail::as_operand<C>(std::forward<B>(b)));
}

}  // namespace fusegrad
