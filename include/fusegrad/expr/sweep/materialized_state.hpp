// expr/sweep/materialized_state.hpp -- a materialised node: a whole array, from operands that are segments of their
// own.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

#include <boost/mp11/algorithm.hpp>

#include <fusegrad/expr/children.hpp>
#include <fusegrad/expr/leaf_uses.hpp>
#include <fusegrad/expr/materialized_expr.hpp>
#include <fusegrad/expr/segment_access.hpp>
#include <fusegrad/expr/storage.hpp>
#include <fusegrad/expr/sweep/leaf_state.hpp>
#include <fusegrad/expr/sweep/protocol.hpp>
#include <fusegrad/expr/sweep/segment_loop.hpp>
#include <fusegrad/shape/extents.hpp>

namespace fusegrad::detail {

// One operand of a materialised node, as the root of its own segment.
template <class Op, class X>
struct materialized_operand {
  using value_type = typename X::value_type;
  using static_shape = typename X::static_shape;
  static constexpr bool is_leaf = X::kind == node_kind::leaf;
  static constexpr bool takes_grad = X::takes_grad;
  static constexpr bool reduced_in_loop = LinearFullReduction<Op>;  // a full sum or mean, taken in its operand's loop
  using upstream_shape = std::conditional_t<reduced_in_loop, Shape<>, static_shape>;

  const X& node;
  Extents extents;
  [[no_unique_address]] std::conditional_t<is_leaf || reduced_in_loop, nothing, scratch_t<value_type, static_shape>>
      values;
  // A leaf's gradient that only this operand sends to (basic_var_sinks::sole_sink_for): the VJP is written there,
  // and the buffer and the sweep that would add it are skipped.
  [[no_unique_address]] std::conditional_t<is_leaf && takes_grad && !reduced_in_loop, value_type*, nothing> sole_sink;
  scratch_t<value_type, upstream_shape> upstream;
  sweep_state<X, static_shape> state;
  segment_access<value_type, upstream_shape, static_shape> upstream_access;

  template <class Sinks>
  materialized_operand(const X& x, Sinks& sinks)
      : node(x),
        extents(x.extents()),
        values(make_values(extents)),
        sole_sink(sole_sink_of(x, sinks)),
        upstream(make_scratch<value_type, upstream_shape>(reduced_in_loop      ? 1
                                                          : written_in_place() ? 0
                                                                               : extents.size())),
        state(x, extents, sinks),
        upstream_access(upstream.data(), reduced_in_loop ? Extents{} : extents, extents, nullptr) {}

  template <class Sinks>
  static auto sole_sink_of([[maybe_unused]] const X& x, [[maybe_unused]] Sinks& sinks) {
    if constexpr (std::is_same_v<decltype(sole_sink), nothing>)
      return nothing{};
    else if constexpr (SoleSinks<Sinks, X>)
      return sinks.sole_sink_for(x);
    else
      return static_cast<value_type*>(nullptr);
  }

  // Whether this operand's VJP goes straight to its leaf's gradient.
  [[nodiscard]] bool written_in_place() const {
    if constexpr (std::is_same_v<decltype(sole_sink), nothing>)
      return false;
    else
      return sole_sink != nullptr;
  }
  // Where this operand's VJP is written.
  [[nodiscard]] value_type* vjp_target() {
    if constexpr (std::is_same_v<decltype(sole_sink), nothing>)
      return upstream.data();
    else
      return sole_sink ? sole_sink : upstream.data();
  }

  static auto make_values(const Extents& e) {
    if constexpr (is_leaf || reduced_in_loop)
      return nothing{};
    else
      return make_scratch<value_type, static_shape>(e.size());
  }

  [[nodiscard]] const value_type* data() const {
    if constexpr (is_leaf)
      return node.data();
    else if constexpr (reduced_in_loop)
      return nullptr;
    else
      return values.data();
  }
};

// Holds operand I of a materialised node; a base class so the pack is built in place.
template <std::size_t I, class Operand>
struct operand_slot {
  Operand operand;
};

template <class E, class Indices = std::make_index_sequence<E::op::arity>>
struct operand_pack;

template <class E, std::size_t... I>
struct operand_pack<E, std::index_sequence<I...>>
    : operand_slot<I, materialized_operand<typename E::op, boost::mp11::mp_at_c<typename E::operand_types, I>>>... {
  template <std::size_t J>
  using operand_t = materialized_operand<typename E::op, boost::mp11::mp_at_c<typename E::operand_types, J>>;

  template <class Sinks>
  operand_pack(const E& e, Sinks& sinks) : operand_slot<I, operand_t<I>>{operand_t<I>(std::get<I>(e.args), sinks)}... {}

  template <std::size_t J>
  auto& get() {
    return static_cast<operand_slot<J, operand_t<J>>&>(*this).operand;
  }
  template <class F>
  void for_each(F&& f) {
    (f(std::integral_constant<std::size_t, I>{}, get<I>()), ...);
  }
  template <class T>
  [[nodiscard]] operands<T, sizeof...(I)> view() {
    if constexpr ((std::is_convertible_v<decltype(get<I>().data()), const T*> && ...))
      return {{get<I>().data()...}, {get<I>().extents...}};
    else
      return {};  // operands of mixed scalar types: reported once, where the node's type was formed
  }
};

// What an op keeps from its value for its VJPs (SavesForBackward), or nothing.
template <class Op, class T>
struct saved_for_backward {
  using type = nothing;
};
template <SavesForBackward Op, class T>
struct saved_for_backward<Op, T> {
  using type = typename Op::template saved_type<T>;
};

// saved_by_root_t<E>: what a sweep whose root is E can hand over from its forward to a later backward's sweep (the
// root's op's saved_type when E is materialised), or nothing. What an op saves may point into its operands' values:
// only a leaf's stay where they are once the sweep that computed them is over, so every operand must be a leaf.
template <class E>
constexpr bool hands_over_saved() {
  if constexpr (E::kind == node_kind::materialized)
    return []<class... Xs>(boost::mp11::mp_list<Xs...>) {
      return ((Xs::kind == node_kind::leaf) && ...);
    }(child_nodes_t<E>{});
  else
    return false;
}
template <class E, bool = hands_over_saved<E>()>
struct saved_by_root {
  using type = nothing;
};
template <class E>
struct saved_by_root<E, true> {
  using type = typename saved_for_backward<typename E::op, typename E::value_type>::type;
};
template <class E>
using saved_by_root_t = typename saved_by_root<E>::type;

template <class E, class Segment>
struct sweep_state<E, Segment, sweep_role::materialized> {
  using Op = typename E::op;
  using value_type = typename E::value_type;
  using static_shape = typename E::static_shape;
  static constexpr bool reduced_in_loop = LinearFullReduction<Op>;

  // The node's op: a copy when it has no run-time parameters (a reference would cost a pointer).
  [[no_unique_address]] std::conditional_t<std::is_empty_v<Op>, Op, const Op&> op_;
  Extents extents;
  scratch_t<value_type, static_shape> value;
  scratch_t<value_type, static_shape> grad;  // what the parent segment's sweep sends back, written over
  using access_type = segment_access<value_type, static_shape, Segment, grad_write::overwrite>;
  using saved_type = typename saved_for_backward<Op, value_type>::type;
  using registers = typename access_type::template registers_for<E::takes_grad>;
  static constexpr gradient_target grad_target = access_type::template target_for<E::takes_grad>;
  access_type access;

  template <class Sinks>
  sweep_state(const E& e, const Extents& segment, Sinks& sinks)
      : op_(e.spec),
        extents(e.extents()),
        value(make_scratch<value_type, static_shape>(extents.size())),
        grad(make_scratch<value_type, static_shape>(extents.size())),
        access(value.data(), extents, segment, E::takes_grad ? grad.data() : nullptr),
        operands_(e, sinks) {}

  // Post-order: operands' own materialised nodes, then operand values, then this value.
  void forward() {
    forward_operands();
    if constexpr (SavesForBackward<Op>)
      op_.value(value.data(), operands_.template view<value_type>(), &saved_);
    else if constexpr (!reduced_in_loop)
      op_.value(value.data(), operands_.template view<value_type>());
    access.load();
  }

  void fold(const registers& r) { access.fold(r); }
  void unreached() { access.unreached(); }

  // After the parent segment's loop: collect this node's gradient, then sweep its operands.
  void finish() {
    access.finish();
    sweep_operands(grad.data());
  }

  // This node as the root of a sweep whose upstream is shaped like it and whose values no one
  // reads (a tape node's backward): its operands' VJPs start from `upstream` as it is, and its
  // own value is computed only when they read it, so a matmul's product is not computed again.
  // `kept` is what the op saved when the node's value was computed (take_saved), if anything.
  void backward_from(const value_type* upstream, saved_by_root_t<E>* kept = nullptr) {
    if constexpr (!std::is_same_v<saved_by_root_t<E>, nothing>)
      if (kept) saved_ = std::exchange(*kept, {});  // taken: a later backward gets a state no value() filled
    forward_operands();
    if constexpr (!reduced_in_loop && needs_output(Op::needs))
      op_.value(value.data(), operands_.template view<value_type>());
    sweep_operands(upstream);
  }

  // What the op saved for its VJPs in forward() (SavesForBackward), for a later backward_from.
  [[nodiscard]] saved_type take_saved() { return std::move(saved_); }

  template <int N, bool Keep, bool Known = false>
  using frame = memory_frame_t<decltype(access), value_type, N>;

 private:
  void forward_operands() {
    operands_.for_each([&](auto, auto& o) {
      using operand = std::remove_reference_t<decltype(o)>;
      o.state.forward();
      if constexpr (reduced_in_loop) {
        value_type total(0);
        run_segment<typename operand::static_shape>(o.state, o.extents, sum_values<value_type>{&total});
        std::fill_n(value.data(), extents.size(), total / Op::template divisor<value_type>(o.extents.size()));
      } else if constexpr (!operand::is_leaf) {
        run_segment<typename operand::static_shape>(o.state, o.extents, store_values<value_type>{o.values.data()});
      }
    });
  }

  // Each operand's VJP from this node's gradient dy, then the sweep of the operand's segment.
  void sweep_operands([[maybe_unused]] const value_type* dy) {
    if constexpr (E::takes_grad) {
      if constexpr (JointVjp<Op>) {  // every operand's gradient in one call, before any operand's sweep
        std::array<value_type*, Op::arity> dx{};
        operands_.for_each([&]<std::size_t I>(std::integral_constant<std::size_t, I>, auto& o) {
          if constexpr (std::remove_reference_t<decltype(o)>::takes_grad) dx[I] = o.vjp_target();
        });
        if constexpr (SavesForBackward<Op>)
          op_.vjp_all(dx, dy, operands_.template view<value_type>(), value.data(), &saved_);
        else
          op_.vjp_all(dx, dy, operands_.template view<value_type>(), value.data());
      }
      operands_.for_each([&]<std::size_t I>(std::integral_constant<std::size_t, I>, auto& o) {
        using operand = std::remove_reference_t<decltype(o)>;
        if constexpr (operand::takes_grad) {
          if constexpr (reduced_in_loop) {
            o.upstream[0] = dy[0] / Op::template divisor<value_type>(o.extents.size());
          } else if constexpr (!JointVjp<Op>) {
            // An empty operand has no gradient to write, however many groups the VJP would walk ((5e7, 0), axis 1).
            if (o.extents.size() != 0)
              op_.template vjp<I>(o.vjp_target(), dy, operands_.template view<value_type>(), value.data());
          }
          if (o.written_in_place()) return;
          o.upstream_access.load();
          if constexpr (!operand::is_leaf && !reduced_in_loop) {
            // A materialised operand's values are in memory: its root reads them, not recomputes.
            run_segment<typename operand::static_shape, true>(o.state, o.extents, discard_values{}, &o.upstream_access,
                                                              o.values.data());
          } else {
            run_segment<typename operand::static_shape>(o.state, o.extents, discard_values{}, &o.upstream_access);
          }
          o.state.finish();
        }
      });
    }
  }

  operand_pack<E> operands_;
  [[no_unique_address]] saved_type saved_;  // from forward() to the VJPs
};

}  // namespace fusegrad::detail
