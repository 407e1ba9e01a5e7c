// expr/sweep/elementwise_state.hpp -- unary and binary element-wise nodes, fused into their segment's loop.
#pragma once

#include <algorithm>
#include <type_traits>
#include <utility>

#include <Eigen/Core>

#include <fusegrad/expr/binary_expr.hpp>
#include <fusegrad/expr/storage.hpp>
#include <fusegrad/expr/sweep/protocol.hpp>
#include <fusegrad/expr/unary_expr.hpp>
#include <fusegrad/shape/extents.hpp>

namespace fusegrad::detail {

template <class Op, class X, class Segment>
struct sweep_state<unary_expr<Op, X>, Segment, sweep_role::fused> {
  using node = unary_expr<Op, X>;
  using value_type = typename node::value_type;
  using operand_state = sweep_state<node_t<X>, Segment>;
  operand_state x;
  struct registers {
    typename operand_state::registers x;
  };
  static constexpr gradient_target grad_target = operand_state::grad_target;

  // Always inlined, as the leaves' are: a one-element graph is swept in its caller (grad.hpp), where the compiler then
  // sees which leaf is which var and routes each gradient without comparing addresses.
  template <class Sinks>
  [[gnu::always_inline]] sweep_state(const node& e, const Extents& segment, Sinks& sinks) : x(e.x, segment, sinks) {}

  void forward() { x.forward(); }
  void fold(const registers& r) { x.fold(r.x); }
  void unreached() { x.unreached(); }
  void finish() {
    if constexpr (!is_differentiable_op_v<Op>) unreached();  // an op that passes no gradient (a user's)
    x.finish();
  }

  template <int N, bool Keep, bool Known = false>
  struct frame {
    // sin and cos: the value and the slope the VJP multiplies by, computed together (TakesValueWithSlope).
    static constexpr bool with_slope = !Known && node_t<X>::takes_grad && TakesValueWithSlope<Op, value_type>;
    using operand_frame = typename operand_state::template frame<N, needs_input(Op::needs) && !with_slope>;
    using lazy_value = decltype(Op::value(std::declval<const operand_frame&>().value()));
    static constexpr bool store =
        !Known && (Keep || needs_output(Op::needs) || with_slope || lazy_depth_v<lazy_value> > max_lazy_depth);
    operand_frame x;
    [[no_unique_address]] std::conditional_t<Known, const_block_map<value_type, N>,
                                             std::conditional_t<store, block_t<value_type, N>, nothing>>
        y;
    [[no_unique_address]] std::conditional_t<with_slope, block_t<value_type, N>, nothing> slope;

    frame(sweep_state& s, Eigen::Index offset, Eigen::Index n) : x(s.x, offset, n) {
      if constexpr (with_slope)
        Op::value_and_slope(x.value(), y, slope);
      else if constexpr (store)
        y = Op::value(x.value());
    }
    frame(sweep_state& s, Eigen::Index offset, Eigen::Index n, const value_type* known) requires Known
        : x(s.x, offset, n),
          y(known + offset, n) {}

    [[nodiscard]] decltype(auto) value() const {
      if constexpr (Known || store)
        return (y);
      else
        return Op::value(x.value());
    }

    template <class D>
    void backward(const D& dy, registers& r) {
      if constexpr (!node_t<X>::takes_grad)
        return;
      else if constexpr (with_slope)
        x.backward(bounded_lazy<value_type, N>(dy * slope), r.x);
      else
        x.backward(bounded_lazy<value_type, N>(Op::vjp(dy, x.value(), value())), r.x);
    }
  };
};

template <class Op, class L, class R, class Segment>
struct sweep_state<binary_expr<Op, L, R>, Segment, sweep_role::fused> {
  using node = binary_expr<Op, L, R>;
  using value_type = typename node::value_type;
  using lhs_state = sweep_state<node_t<L>, Segment>;
  using rhs_state = sweep_state<node_t<R>, Segment>;
  lhs_state lhs;
  rhs_state rhs;
  struct registers {
    typename lhs_state::registers lhs;
    typename rhs_state::registers rhs;
  };
  static constexpr gradient_target grad_target = std::max(lhs_state::grad_target, rhs_state::grad_target);

  template <class Sinks>  // always inlined, as the unary node's
  [[gnu::always_inline]] sweep_state(const node& e, const Extents& segment, Sinks& sinks)
      : lhs(e.lhs, segment, sinks), rhs(e.rhs, segment, sinks) {}

  void forward() {
    lhs.forward();
    rhs.forward();
  }
  void fold(const registers& r) {
    lhs.fold(r.lhs);
    rhs.fold(r.rhs);
  }
  void unreached() {
    lhs.unreached();
    rhs.unreached();
  }
  void finish() {
    if constexpr (!is_differentiable_op_v<Op>) unreached();  // a comparison passes its operands no gradient
    lhs.finish();
    rhs.finish();
  }

  template <int N, bool Keep, bool Known = false>
  struct frame {
    using lhs_frame = typename lhs_state::template frame<N, needs_input(Op::needs)>;
    using rhs_frame = typename rhs_state::template frame<N, needs_input(Op::needs)>;
    using lazy_value =
        decltype(Op::value(std::declval<const lhs_frame&>().value(), std::declval<const rhs_frame&>().value()));
    static constexpr bool store =
        !Known && (Keep || needs_output(Op::needs) || lazy_depth_v<lazy_value> > max_lazy_depth);
    static constexpr bool grad_lhs = node_t<L>::takes_grad, grad_rhs = node_t<R>::takes_grad;
    lhs_frame lhs;
    rhs_frame rhs;
    [[no_unique_address]] std::conditional_t<Known, const_block_map<value_type, N>,
                                             std::conditional_t<store, block_t<value_type, N>, nothing>>
        y;

    frame(sweep_state& s, Eigen::Index offset, Eigen::Index n) : lhs(s.lhs, offset, n), rhs(s.rhs, offset, n) {
      if constexpr (store) y = Op::value(lhs.value(), rhs.value());
    }
    frame(sweep_state& s, Eigen::Index offset, Eigen::Index n, const value_type* known) requires Known
        : lhs(s.lhs, offset, n),
          rhs(s.rhs, offset, n),
          y(known + offset, n) {}

    [[nodiscard]] decltype(auto) value() const {
      if constexpr (Known || store)
        return (y);
      else
        return Op::value(lhs.value(), rhs.value());
    }

    template <class D>
    void backward(const D& dy, registers& r) {
      if constexpr (grad_lhs && grad_rhs && has_uniform_factor_v<D> && grad_target == gradient_target::lanes) {
        // Both sides read it: evaluate once what is not uniform, and keep the uniform factor apart, so that the lanes
        // below (one-value operands' gradients, and nothing else) take it out of the loop (add_to_lanes). A gradient
        // that also goes to memory is evaluated as written, so that no element's product is formed in another order.
        const auto& rest = block_values<N, value_type>(factored_core(dy));  // read in place where it is in memory
        propagate(Eigen::Array<value_type, N, 1>::Constant(dy.size(), uniform_factor(dy)) * rest, r);
      } else if constexpr (grad_lhs && grad_rhs && !is_evaluated_v<D>) {
        const block_t<value_type, N> shared = dy;  // both sides read it: evaluate once
        propagate(shared, r);
      } else {
        propagate(dy, r);
      }
    }

   private:
    template <class D>
    void propagate(const D& dy, registers& r) {
      if constexpr (grad_lhs)
        lhs.backward(bounded_lazy<value_type, N>(Op::vjp_lhs(dy, lhs.value(), rhs.value(), value())), r.lhs);
      if constexpr (grad_rhs)
        rhs.backward(bounded_lazy<value_type, N>(Op::vjp_rhs(dy, lhs.value(), rhs.value(), value())), r.rhs);
    }
  };
};

}  // namespace fusegrad::detail
