// tape/flat_op.hpp -- flat_op: a one-op tape node's value and VJP, straight from its op spec on whole arrays.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <type_traits>

#include <Eigen/Core>

#include <fusegrad/concepts.hpp>
#include <fusegrad/detail/buffer.hpp>
#include <fusegrad/detail/carried_sum.hpp>
#include <fusegrad/expr/binary_expr.hpp>
#include <fusegrad/expr/leaf.hpp>
#include <fusegrad/expr/unary_expr.hpp>
#include <fusegrad/expr/visit.hpp>
#include <fusegrad/shape/any_shape.hpp>
#include <fusegrad/shape/extents.hpp>
#include <fusegrad/shape/reduce_broadcast.hpp>
#include <fusegrad/tape/basic_tensor.hpp>
#include <fusegrad/tape/tensor_sinks.hpp>

namespace fusegrad::detail {

// A one-op tape node (most of a taped graph: one element-wise op over tensors and numbers)
// runs the op spec's value and VJP on Eigen maps of whole arrays: the same numbers as the
// fused sweep, without the bookkeeping a one-op node cannot afford, and without compiling
// the sweep for every op a program records. An operand meets the output's n elements in one
// of three ways, found from its size on each call (for an operand whose static shape holds one
// value, a number, from that shape: binary_operands::apply):
//   full     -- it has n elements: a map of its values;
//   uniform  -- it is one value (a number, a scalar tensor): an Eigen constant, and its
//               gradient is the sum of its VJP;
//   expanded -- any other broadcast: copied out to n values first (broadcast_into), and its
//               gradient summed back (reduce_broadcast_into).
template <class E>
struct flat_op {
  using T = typename E::value_type;
  // A unary op that takes its value with its slope; false for any other E (a leaf has no op to ask).
  static constexpr bool unary_with_slope = [] {
    if constexpr (is_unary_expr_v<E>)
      return TakesValueWithSlope<typename E::op, T>;
    else
      return false;
  }();
  template <class X>
  static constexpr bool direct_operand = is_tensor_v<X> || X::kind == node_kind::leaf;

  // E is one element-wise op over tensors and numbers, with at least one tensor.
  static constexpr bool applies = [] {
    if constexpr (is_unary_expr_v<E>)
      return is_tensor_v<node_t<decltype(E::x)>>;
    else if constexpr (E::kind == node_kind::elementwise)
      return direct_operand<node_t<decltype(E::lhs)>> && direct_operand<node_t<decltype(E::rhs)>> &&
             (is_tensor_v<node_t<decltype(E::lhs)>> || is_tensor_v<node_t<decltype(E::rhs)>>);
    else
      return false;
  }();

  // The n values of the op into out.
  static void value(const E& e, std::size_t n, T* out) {
    using Op = typename E::op;
    if (n == 1) {  // every operand is one value
      map<1>(out) = op_value_of_one(e);
    } else if constexpr (is_unary_expr_v<E>) {
      map(out, n) = Op::value(map(values_of(e.x), n));  // an element-wise op keeps its operand's shape
    } else {
      const binary_operands args(e, n);
      args.apply([&](const auto& a, const auto& b) { map(out, n) = Op::value(a, b); });
    }
  }

  // The n values of the op into out and its slope dy/dx into slope, from one evaluation (a unary op that takes its
  // value with its slope: TakesValueWithSlope). The values are those value() gives.
  static void value_and_slope(const E& e, std::size_t n, T* out, T* slope) requires unary_with_slope {
    auto y = map(out, n);
    auto dydx = map(slope, n);
    E::op::value_and_slope(map(values_of(e.x), n), y, dydx);
  }

  // The VJP from the n values at grad_output, added into the operands' gradient destinations. `output` holds the
  // op's n values, where they are still known (the output's storage, unwritten since recording); otherwise a VJP that
  // reads them has them computed again. `slope`, where not null, holds the slope value_and_slope() gave at the
  // operand's values: the VJP is dy times it. Where bit k of `unfilled` is set, the destination of input k holds
  // nothing yet: the VJP is written there, not added (only for n > 1: takes_unfilled()).
  static void backward(const E& e, std::size_t n, const T* grad_output, const tensor_sinks<T>& sinks,
                       const T* output = nullptr, std::uint64_t unfilled = 0, const T* slope = nullptr) {
    if (n == 1)
      backward_of_one(e, grad_output, sinks);
    else if constexpr (is_unary_expr_v<E>)
      unary_backward(e, n, grad_output, sinks, output, unfilled, slope);
    else
      binary_backward(e, n, grad_output, sinks, output, unfilled);
  }
  // Whether backward() over n values may be handed destinations that hold nothing yet. One value's are zeroed by the
  // engine: a store, where telling them apart would cost more.
  static bool takes_unfilled(std::size_t n) noexcept { return n > 1; }

 private:
  template <int N = Eigen::Dynamic>
  static Eigen::Map<Eigen::Array<T, N, 1>> map(T* p, std::size_t n = 1) {
    return {p, static_cast<Eigen::Index>(n)};
  }
  template <int N = Eigen::Dynamic>
  static Eigen::Map<const Eigen::Array<T, N, 1>> map(const T* p, std::size_t n = 1) {
    return {p, static_cast<Eigen::Index>(n)};
  }

  // The values of a leaf of the expression (a tensor is defined: fused() checked it).
  template <class L>
  static const T* values_of(const L& leaf) {
    if constexpr (is_tensor_v<L>)
      return leaf.impl()->data();
    else
      return leaf.data();
  }
  template <class L>
  static Extents extents_of(const L& leaf) {
    if constexpr (is_tensor_v<L>)
      return leaf.impl()->extents.get();
    else
      return leaf.extents();
  }
  template <class L>
  static std::size_t size_of(const L& leaf) {
    if constexpr (is_tensor_v<L>)
      return leaf.impl()->extents.size();
    else
      return leaf.extents().size();
  }

  // One element: Eigen handles fixed-size values without a loop or a call, so a scalar
  // tensor's op is a few instructions.
  static auto op_value_of_one(const E& e) {
    using Op = typename E::op;
    if constexpr (is_unary_expr_v<E>)
      return Op::value(map<1>(values_of(e.x)));
    else
      return Op::value(map<1>(values_of(e.lhs)), map<1>(values_of(e.rhs)));
  }
  static void backward_of_one(const E& e, const T* grad_output, const tensor_sinks<T>& sinks) {
    using Op = typename E::op;
    const auto dy = map<1>(grad_output);
    const auto add_vjps = [&](const auto& y) {
      if constexpr (is_unary_expr_v<E>) {
        if (T* g = sinks.sink_for(e.x)) map<1>(g) += Op::vjp(dy, map<1>(values_of(e.x)), y);
      } else {
        const auto a = map<1>(values_of(e.lhs));
        const auto b = map<1>(values_of(e.rhs));
        if (T* g = sinks.sink_for(e.lhs)) map<1>(g) += Op::vjp_lhs(dy, a, b, y);
        if (T* g = sinks.sink_for(e.rhs)) map<1>(g) += Op::vjp_rhs(dy, a, b, y);
      }
    };
    if constexpr (needs_output(Op::needs))
      add_vjps(Eigen::Array<T, 1, 1>(op_value_of_one(e)));  // into a register, once
    else
      add_vjps(op_value_of_one(e));  // y is never evaluated
  }

  // Writes or adds (`fresh`: the destination holds nothing yet) the n values of vjp at g.
  template <class Vjp>
  static void send(T* g, bool fresh, std::size_t n, const Vjp& vjp) {
    if (fresh)
      map(g, n) = vjp;
    else
      map(g, n) += vjp;
  }

  // A VJP that reads the output reads the known values, or has them computed once into a buffer, not once per use.
  static void unary_backward(const E& e, std::size_t n, const T* grad_output, const tensor_sinks<T>& sinks,
                             const T* output, std::uint64_t unfilled, const T* slope) {
    using Op = typename E::op;
    T* g = sinks.sink_for(e.x);
    if (!g) return;
    const bool fresh = sinks.holds_nothing(e.x, unfilled);
    const auto dy = map(grad_output, n);
    const auto x = map(values_of(e.x), n);
    if constexpr (TakesValueWithSlope<Op, T>) {
      if (slope) {
        send(g, fresh, n, dy * map(slope, n));
        return;
      }
    } else {
      (void)slope;
    }
    if constexpr (needs_output(Op::needs)) {
      small_buffer<T> computed;
      if (!output) {
        computed.resize(n);
        map(computed.data(), n) = Op::value(x);
        output = computed.data();
      }
      send(g, fresh, n, Op::vjp(dy, x, map(output, n)));
    } else {
      send(g, fresh, n, Op::vjp(dy, x, Op::value(x)));  // y is never evaluated
    }
  }

  enum class layout : unsigned char { full, uniform, expanded };
  // Whether binary_operands::apply() handed an operand to f as a constant (the uniform one) rather than as a map.
  template <class A>
  static constexpr bool is_constant_v =
      !std::is_same_v<std::remove_cvref_t<A>, Eigen::Map<const Eigen::Array<T, Eigen::Dynamic, 1>>>;

  // One operand of a binary op as the output's elements see it.
  struct operand {
    const T* values;  // an expanded operand's: copied out to the output's shape
    layout how;
    const Extents* own = nullptr;  // an expanded operand's extents: its gradient is summed back to them
    bool fresh = false;            // its gradient's destination holds nothing yet: written, not added to
  };

  // The two operands of a binary op over n output elements.
  // It points into itself (an expanded operand's values and extents): it is made in place, never copied or moved.
  struct binary_operands {
    std::size_t n;  // before lhs and rhs: their initialisers read it
    operand lhs, rhs;
    // What expanding takes; made only for an operand broadcast other than from one value, so that
    // the common call initialises none of it.
    struct expansion {
      expansion(const Extents& output_extents, const Extents& lhs_extents, const Extents& rhs_extents)
          : output(output_extents), lhs(lhs_extents), rhs(rhs_extents) {}
      Extents output, lhs, rhs;
      small_buffer<T> lhs_values, rhs_values;
      // An expanded operand's VJP over the output, before it is summed back: sized before any gradient is added,
      // so that a failed allocation leaves every gradient as it was.
      small_buffer<T> vjp;
    };
    std::optional<expansion> expanded;

    binary_operands(const E& e, std::size_t size)
        : n(size), lhs{values_of(e.lhs), layout_of(size_of(e.lhs))}, rhs{values_of(e.rhs), layout_of(size_of(e.rhs))} {
      if (lhs.how == layout::expanded || rhs.how == layout::expanded) [[unlikely]] {
        expansion& x = expanded.emplace(e.extents(), extents_of(e.lhs), extents_of(e.rhs));
        expand(lhs, x.lhs, x.lhs_values, x.output);
        expand(rhs, x.rhs, x.rhs_values, x.output);
      }
    }
    binary_operands(const binary_operands&) = delete;
    binary_operands& operator=(const binary_operands&) = delete;
    [[nodiscard]] layout layout_of(std::size_t size) const {
      return size == n ? layout::full : size == 1 ? layout::uniform : layout::expanded;
    }
    void expand(operand& side, const Extents& own, small_buffer<T>& copy, const Extents& output) const {
      if (side.how != layout::expanded) return;
      copy.resize(n);
      broadcast_into(copy.data(), side.values, own, output);
      side.values = copy.data();
      side.own = &own;
    }

    // f(a, b) with the operands as Eigen expressions of n values: a map each, or a constant
    // for the uniform one (only one can be: the output has more than one element). An operand whose
    // static shape holds one value (a number) is always the uniform one: f is compiled for that case alone.
    template <class F>
    void apply(F&& f) const {
      if constexpr (holds_one_value_v<node_t<decltype(E::lhs)>>) {
        f(constant(lhs), map(rhs.values, n));
      } else if constexpr (holds_one_value_v<node_t<decltype(E::rhs)>>) {
        f(map(lhs.values, n), constant(rhs));
      } else {
        if (lhs.how == layout::uniform)
          f(constant(lhs), map(rhs.values, n));
        else if (rhs.how == layout::uniform)
          f(map(lhs.values, n), constant(rhs));
        else
          f(map(lhs.values, n), map(rhs.values, n));
      }
    }
    [[nodiscard]] auto constant(const operand& side) const {
      return Eigen::Array<T, Eigen::Dynamic, 1>::Constant(static_cast<Eigen::Index>(n), side.values[0]);
    }

    // Sends to g the gradient of `side`, from its VJP over the output's n elements. Uniform: whether apply() handed
    // the side to the VJP as a constant, which it does exactly when the side is one value; each VJP's loops are
    // then compiled only for the layouts its operand can have.
    template <bool Uniform, class Vjp>
    void add(const operand& side, T* g, const Vjp& vjp) {
      if constexpr (Uniform) {  // a float total is taken in double, as every sum of float (carried_sum.hpp)
        const T total = T(vjp.template cast<carried_sum_t<T>>().sum());
        g[0] = side.fresh ? total : g[0] + total;
      } else if (side.how == layout::full) {
        send(g, side.fresh, n, vjp);
      } else {  // expanded
        map(expanded->vjp.data(), n) = vjp;
        if (side.fresh) std::fill_n(g, side.own->size(), T(0));
        reduce_broadcast_into(g, static_cast<const T*>(expanded->vjp.data()), expanded->output, *side.own);
      }
    }
  };

  static void binary_backward(const E& e, std::size_t n, const T* grad_output, const tensor_sinks<T>& sinks,
                              const T* output, std::uint64_t unfilled) {
    using Op = typename E::op;
    T* const lhs_grad = sinks.sink_for(e.lhs);
    T* const rhs_grad = sinks.sink_for(e.rhs);
    if (!lhs_grad && !rhs_grad) return;
    binary_operands args(e, n);
    args.lhs.fresh = lhs_grad && sinks.holds_nothing(e.lhs, unfilled);
    args.rhs.fresh = rhs_grad && rhs_grad != lhs_grad && sinks.holds_nothing(e.rhs, unfilled);  // x * x: lhs first
    if ((args.lhs.how == layout::expanded && lhs_grad) || (args.rhs.how == layout::expanded && rhs_grad)) [[unlikely]]
      args.expanded->vjp.resize(n);
    const auto dy = map(grad_output, n);
    small_buffer<T> computed;  // the output, when the VJPs read it and it is not known
    if constexpr (needs_output(Op::needs)) {
      if (!output) {
        computed.resize(n);
        args.apply([&](const auto& a, const auto& b) { map(computed.data(), n) = Op::value(a, b); });
        output = computed.data();
      }
    }
    args.apply([&](const auto& a, const auto& b) {
      const auto add_vjps = [&](const auto& y) {
        using A = decltype(a);  // a map, or the constant of a uniform operand
        using B = decltype(b);
        if (lhs_grad) args.template add<is_constant_v<A>>(args.lhs, lhs_grad, Op::vjp_lhs(dy, a, b, y));
        if (rhs_grad) args.template add<is_constant_v<B>>(args.rhs, rhs_grad, Op::vjp_rhs(dy, a, b, y));
      };
      if constexpr (needs_output(Op::needs))
        add_vjps(map(output, n));
      else
        add_vjps(Op::value(a, b));  // y is never evaluated
    });
  }
};

}  // namespace fusegrad::detail
