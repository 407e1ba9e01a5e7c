// expr/sweep.hpp -- the fused reverse sweep: per-node sweep state, per-block frames, the segment loop.
//
// This header is longer than most because it is the one place where the static graph
// becomes loops; it reads top-down: the segment loop, then the state and block frame of
// each node kind (leaf, unary, binary, materialised).
//
// The rule for what is kept (decided at compile time from the op specs' `needs`):
//  * The tree is cut into segments: maximal element-wise sub-trees. A segment runs as ONE
//    strip-mined loop; per block of `block_length` elements every node of the segment is
//    evaluated, then the reverse sweep of that block runs, then the next block follows.
//    Inputs are read once and gradients written once per block, like a hand-written loop.
//  * Inside a block a node's value is stored (a fixed-size Eigen array) only when its own
//    VJP reads its output, or its parent's VJP reads its inputs. Otherwise it stays a lazy
//    Eigen expression inlined into its parent, used exactly once. So nothing is computed
//    twice, and a chain of 30 nested tanh costs 30 tanh per element forward, not 30^2.
//  * An upstream gradient shared by two operands that both need it is evaluated once per
//    block, so binary trees cost linear, never exponential, work.
//  * Materialised nodes (matmul, axis reductions ...) keep their whole value: they are the
//    boundaries between segments. Segments below them are recomputed block by block during
//    the reverse sweep instead of being stored (no heap for static shapes).
#pragma once

#include <algorithm>
#include <cstddef>
#include <type_traits>
#include <utility>

#include <Eigen/Core>
#include <boost/mp11/algorithm.hpp>
#include <tuple>

#include <fusegrad/concepts.hpp>
#include <fusegrad/expr/binary_expr.hpp>
#include <fusegrad/expr/materialized_expr.hpp>
#include <fusegrad/expr/segment_access.hpp>
#include <fusegrad/expr/storage.hpp>
#include <fusegrad/expr/unary_expr.hpp>

namespace fusegrad::detail {

struct nothing {};

template <class T, int N>
using const_block_map = Eigen::Map<const Eigen::Array<T, N, 1>>;
template <class T, int N>
using block_map = Eigen::Map<Eigen::Array<T, N, 1>>;

// is_evaluated_v<D>: D already sits in memory (an array or a map), so reading it twice is free.
template <class D>
inline constexpr bool is_evaluated_v =
    std::is_base_of_v<Eigen::PlainObjectBase<std::remove_cv_t<D>>, std::remove_cv_t<D>> ||
    std::is_base_of_v<Eigen::MapBase<std::remove_cv_t<D>, Eigen::ReadOnlyAccessors>, std::remove_cv_t<D>>;

// How a node takes part in the sweep of the segment it sits in.
enum class sweep_role {
  leaf,          // memory read block by block
  fused,         // an element-wise node evaluated inside the segment's loop
  hoisted,       // an element-wise sub-tree of static size 1 in a larger segment (log(sigma)):
                 // loop-invariant, so it runs once as a segment of its own and is read repeated
  materialized,  // a whole array computed from operands that are segments of their own
};

template <class E, class Segment>
constexpr sweep_role role_of() {
  if constexpr (E::kind == node_kind::leaf)
    return sweep_role::leaf;
  else if constexpr (E::kind == node_kind::materialized)
    return sweep_role::materialized;
  else if constexpr (static_size_v<typename E::static_shape> == 1 && static_size_v<Segment> != 1)
    return sweep_role::hoisted;
  else
    return sweep_role::fused;
}

// sweep_state<E, Segment>: what one sweep keeps for node E inside a segment shaped Segment.
template <class E, class Segment, sweep_role = role_of<E, Segment>()>
struct sweep_state;

// ---------------------------------------------------------------------------------------
// The segment loop.

// Runs the strip-mined loop of the segment rooted at `state`. Per block it builds the
// root's frame, hands the block value to consume(value, offset), and, when an upstream
// access is given, runs the block's reverse sweep. Static sizes get fixed-size blocks only.
// With Known, `known` holds the root's values from an earlier pass and the root reads them
// instead of recomputing (a materialised operand's backward sweep). A template parameter,
// not a run-time flag, so that ordinary segments do not instantiate the second frame kind.
// Always inlined, like the drivers in grad.hpp: see the note there on where the sweep is compiled.
template <class Segment, bool Known = false, class State, class Consume, class Upstream = std::nullptr_t>
[[gnu::always_inline]] inline void run_segment(State& state, const Extents& segment, Consume&& consume,
                                               Upstream* upstream = nullptr,
                                               const typename State::value_type* known = nullptr) {
  using T = typename State::value_type;
  constexpr Eigen::Index B = block_length;
  constexpr bool sweeps_back = !std::is_same_v<Upstream, std::nullptr_t>;
  // The loop's accumulators: a local, handed to each block's backward and never stored in a
  // frame, so that its address stays out of memory and the compiler keeps it in registers.
  typename State::registers registers{};
  auto block = [&]<int N>(std::integral_constant<int, N>, Eigen::Index offset, Eigen::Index n) {
    auto sweep = [&](auto& frame) {
      consume(frame.value(), offset);
      if constexpr (!sweeps_back) {
        // forward only
      } else if constexpr (Upstream::uniform) {  // one upstream value for the whole segment
        frame.backward(Eigen::Array<T, N, 1>::Constant(n, upstream->uniform_value()), registers);
      } else {
        frame.backward(const_block_map<T, N>(upstream->values_at(offset), n), registers);
      }
    };
    if constexpr (Known) {
      typename State::template frame<N, false, true> frame(state, offset, n, known);
      sweep(frame);
    } else {
      typename State::template frame<N, false> frame(state, offset, n);
      sweep(frame);
    }
  };
  constexpr std::size_t size = static_size_v<Segment>;
  if constexpr (size != dyn) {
    constexpr Eigen::Index full = Eigen::Index(size) / B, tail = Eigen::Index(size) % B;
    for (Eigen::Index i = 0; i < full; ++i) block(std::integral_constant<int, int(B)>{}, i * B, B);
    if constexpr (tail > 0) block(std::integral_constant<int, int(tail)>{}, full * B, tail);
  } else if (const auto total = static_cast<Eigen::Index>(segment.size()); total == 1) {
    block(std::integral_constant<int, 1>{}, 0, 1);  // scalars at run time (tensors): a fixed-size block, no size checks
  } else {
    Eigen::Index i = 0;
    for (; i + B <= total; i += B) block(std::integral_constant<int, int(B)>{}, i, B);
    if (i < total) block(std::integral_constant<int, Eigen::Dynamic>{}, i, total - i);
  }
  if constexpr (sweeps_back) state.fold(registers);
  if constexpr (requires { consume.fold(); }) consume.fold();
}

// Consumers of a segment's block values.
struct discard_values {
  void operator()(const auto&, Eigen::Index) const noexcept {}
};
template <class T>
struct store_values {  // writes the segment's values into contiguous memory
  T* out;
  template <class D>
  void operator()(const D& v, Eigen::Index offset) const {
    Eigen::Map<Eigen::Array<T, D::RowsAtCompileTime, 1>>(out + offset, v.size()) = v;
  }
};
template <class T>
struct sum_values {  // adds up the segment's values: full blocks lane by lane, folded after the loop
  T* total;
  Eigen::Array<T, int(block_length), 1> lanes = Eigen::Array<T, int(block_length), 1>::Zero();
  template <class D>
  void operator()(const D& v, Eigen::Index) {
    if constexpr (D::RowsAtCompileTime == int(block_length))
      lanes += v;
    else
      *total += v.sum();
  }
  void fold() { *total += lanes.sum(); }
};

// Adds a block's gradient to a single value's lanes (segment_access::lanes). The lanes are
// only ever touched whole or at fixed positions: a run-time position anywhere (the last,
// partial block) would keep them in memory in every block.
template <int N, class Lanes, class D>
void add_to_lanes(Lanes& lanes, const D& dy) {
  using lanes_array = decltype(lanes.sum);
  if constexpr (N == Eigen::Dynamic) {
    lanes_array padded = lanes_array::Zero();
    padded.head(dy.size()) = dy;
    lanes.sum += padded;
  } else {
    lanes.sum.template head<N>() += dy;
  }
}

// ---------------------------------------------------------------------------------------
// Leaves, and materialised nodes seen from their parent's segment: memory read by blocks.

template <class T, int N>
struct access_frame {
  // A one-element block is copied into a register: then sin(x) in the forward sweep and
  // cos(x) in the reverse sweep see the same value, and the compiler can make them one
  // sincos call, as it does in a hand-written scalar gradient.
  using values_type = std::conditional_t<N == 1, Eigen::Array<T, 1, 1>, const_block_map<T, N>>;
  values_type values;
  T* grad;  // nullptr when the gradient goes to the lanes, or nowhere

  static values_type read(const T* p, Eigen::Index n) {
    if constexpr (N == 1)
      return values_type::Constant(*p);
    else
      return values_type(p, n);
  }

  template <class State>
  access_frame(State& s, Eigen::Index offset, Eigen::Index n)
      : values(read(s.access.values_at(offset), n)), grad(s.access.wants_grad() ? s.access.grad_at(offset) : nullptr) {}
  template <class State>  // memory is already what is known: nothing to replace
  access_frame(State& s, Eigen::Index offset, Eigen::Index n, const T* /*known*/) : access_frame(s, offset, n) {}

  [[nodiscard]] const auto& value() const noexcept { return values; }

  // A leaf that may repeat (its shape is known at run time) always adds to the lanes too:
  // a branch would keep them in memory, and fold() ignores them unless the leaf repeats.
  // Then the gradient has two readers, so a lazy one is evaluated once, into registers.
  template <class D, class Lanes>
  void backward(const D& dy, Lanes& lanes) {
    if constexpr (std::is_empty_v<Lanes>) {
      if (grad) block_map<T, N>(grad, values.size()) += dy;
    } else if constexpr (!is_evaluated_v<D>) {
      backward(block_t<T, N>(dy), lanes);
    } else {
      add_to_lanes<N>(lanes, dy);
      if (grad) block_map<T, N>(grad, values.size()) += dy;
    }
  }
};

// One value repeated over the segment, known to be so at compile time (a scalar Var or
// Const, a hoisted sub-tree, a full reduction): read as a constant expression, so it lives
// in a register; its gradient goes to the loop's lanes, whether or not it is asked for:
// fold() drops it then. A branch here would keep the lanes in memory.
template <class T, int N>
struct uniform_frame {
  T constant;
  Eigen::Index n;

  template <class State>
  uniform_frame(State& s, Eigen::Index, Eigen::Index n_) : constant(s.access.uniform_value()), n(n_) {}
  template <class State>
  uniform_frame(State& s, Eigen::Index offset, Eigen::Index n_, const T* /*known*/) : uniform_frame(s, offset, n_) {}

  [[nodiscard]] auto value() const noexcept { return Eigen::Array<T, N, 1>::Constant(n, constant); }

  template <class D, class Lanes>
  void backward(const D& dy, Lanes& lanes) {
    add_to_lanes<N>(lanes, dy);
  }
};

// memory_frame_t<Access, T, N>: how a frame reads something already in memory.
template <class Access, class T, int N>
using memory_frame_t = std::conditional_t<Access::uniform, uniform_frame<T, N>, access_frame<T, N>>;

template <class E, class Segment>
struct sweep_state<E, Segment, sweep_role::leaf> {
  using value_type = typename E::value_type;
  using access_type = segment_access<value_type, typename E::static_shape, Segment>;
  using registers = typename access_type::lanes_type;
  access_type access;

  template <class Sinks>
  sweep_state(const E& leaf, const Extents& segment, Sinks& sinks)
      : access(leaf.data(), leaf.extents(), segment, sinks.sink_for(leaf)) {}

  void forward() { access.load(); }
  void fold(const registers& r) { access.fold(r); }
  void finish() { access.finish(); }

  template <int N, bool Keep, bool Known = false>
  using frame = memory_frame_t<decltype(access), value_type, N>;
};

// ---------------------------------------------------------------------------------------
// Element-wise nodes: fused into their segment's loop.

template <class Op, class X, class Segment>
struct sweep_state<unary_expr<Op, X>, Segment, sweep_role::fused> {
  using node = unary_expr<Op, X>;
  using value_type = typename node::value_type;
  using operand_state = sweep_state<node_t<X>, Segment>;
  operand_state x;
  struct registers {
    typename operand_state::registers x;
  };

  template <class Sinks>
  sweep_state(const node& e, const Extents& segment, Sinks& sinks) : x(e.x, segment, sinks) {}

  void forward() { x.forward(); }
  void fold(const registers& r) { x.fold(r.x); }
  void finish() { x.finish(); }

  template <int N, bool Keep, bool Known = false>
  struct frame {
    static constexpr bool store = !Known && (Keep || needs_output(Op::needs));
    typename operand_state::template frame<N, needs_input(Op::needs)> x;
    [[no_unique_address]] std::conditional_t<Known, const_block_map<value_type, N>,
                                             std::conditional_t<store, block_t<value_type, N>, nothing>>
        y;

    frame(sweep_state& s, Eigen::Index offset, Eigen::Index n) : x(s.x, offset, n) {
      if constexpr (store) y = Op::value(x.value());
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
      if constexpr (node_t<X>::takes_grad) x.backward(Op::vjp(dy, x.value(), value()), r.x);
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

  template <class Sinks>
  sweep_state(const node& e, const Extents& segment, Sinks& sinks)
      : lhs(e.lhs, segment, sinks), rhs(e.rhs, segment, sinks) {}

  void forward() {
    lhs.forward();
    rhs.forward();
  }
  void fold(const registers& r) {
    lhs.fold(r.lhs);
    rhs.fold(r.rhs);
  }
  void finish() {
    lhs.finish();
    rhs.finish();
  }

  template <int N, bool Keep, bool Known = false>
  struct frame {
    static constexpr bool store = !Known && (Keep || needs_output(Op::needs));
    static constexpr bool grad_lhs = node_t<L>::takes_grad, grad_rhs = node_t<R>::takes_grad;
    typename lhs_state::template frame<N, needs_input(Op::needs)> lhs;
    typename rhs_state::template frame<N, needs_input(Op::needs)> rhs;
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
      if constexpr (grad_lhs && grad_rhs && !is_evaluated_v<D>) {
        const block_t<value_type, N> shared = dy;  // both sides read it: evaluate once
        propagate(shared, r);
      } else {
        propagate(dy, r);
      }
    }

   private:
    template <class D>
    void propagate(const D& dy, registers& r) {
      if constexpr (grad_lhs) lhs.backward(Op::vjp_lhs(dy, lhs.value(), rhs.value(), value()), r.lhs);
      if constexpr (grad_rhs) rhs.backward(Op::vjp_rhs(dy, lhs.value(), rhs.value(), value()), r.rhs);
    }
  };
};

// A loop-invariant element-wise sub-tree: evaluated once, before its parent's loop, as a
// segment of its own; the parent reads it repeated. Its gradient is the parent's repeat
// accumulator, swept back through the sub-tree once after the parent's loop.
template <class E, class Segment>
struct sweep_state<E, Segment, sweep_role::hoisted> {
  using value_type = typename E::value_type;
  using static_shape = typename E::static_shape;

  storage_t<value_type, static_shape> value;
  storage_t<value_type, static_shape> grad;
  using access_type = segment_access<value_type, static_shape, Segment>;
  using registers = typename access_type::lanes_type;
  access_type access;
  sweep_state<E, static_shape> inner;
  segment_access<value_type, static_shape, static_shape> upstream;

  template <class Sinks>
  sweep_state(const E& e, const Extents& segment, Sinks& sinks)
      : value(make_storage<value_type, static_shape>(Extents::of<static_shape>())),
        grad(storage_t<value_type, static_shape>::Zero(value.size())),
        access(value.data(), Extents::of<static_shape>(), segment, E::takes_grad ? grad.data() : nullptr),
        inner(e, Extents::of<static_shape>(), sinks),
        upstream(grad.data(), Extents::of<static_shape>(), Extents::of<static_shape>(), nullptr) {}

  void forward() {
    inner.forward();
    run_segment<static_shape>(inner, Extents::of<static_shape>(), store_values<value_type>{value.data()});
    access.load();
  }
  void fold(const registers& r) { access.fold(r); }
  void finish() {
    access.finish();
    if constexpr (E::takes_grad) {
      run_segment<static_shape>(inner, Extents::of<static_shape>(), discard_values{}, &upstream);
      inner.finish();
    }
  }

  template <int N, bool Keep, bool Known = false>
  using frame = memory_frame_t<decltype(access), value_type, N>;
};

// ---------------------------------------------------------------------------------------
// Materialised nodes: a whole array, computed from operands that are segments of their own.

// One operand of a materialised node, as the root of its own segment.
template <class Op, class X>
struct materialized_operand {
  using value_type = typename X::value_type;
  using static_shape = typename X::static_shape;
  static constexpr bool is_leaf = X::kind == node_kind::leaf;
  static constexpr bool takes_grad = X::takes_grad;
  static constexpr bool fused = LinearFullReduction<Op>;  // reduced inside the loop
  using upstream_shape = std::conditional_t<fused, Shape<>, static_shape>;

  const X& node;
  Extents extents;
  [[no_unique_address]] std::conditional_t<is_leaf || fused, nothing, scratch_t<value_type, static_shape>> values;
  scratch_t<value_type, upstream_shape> upstream;
  sweep_state<X, static_shape> state;
  segment_access<value_type, upstream_shape, static_shape> upstream_access;

  template <class Sinks>
  materialized_operand(const X& x, Sinks& sinks)
      : node(x),
        extents(x.extents()),
        values(make_values(extents)),
        upstream(make_scratch<value_type, upstream_shape>(fused ? 1 : extents.size())),
        state(x, extents, sinks),
        upstream_access(upstream.data(), fused ? Extents{} : extents, extents, nullptr) {}

  static auto make_values(const Extents& e) {
    if constexpr (is_leaf || fused)
      return nothing{};
    else
      return make_scratch<value_type, static_shape>(e.size());
  }

  [[nodiscard]] const value_type* data() const {
    if constexpr (is_leaf)
      return node.data();
    else if constexpr (fused)
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
    return {{get<I>().data()...}, {get<I>().extents...}};
  }
};

template <class E, class Segment>
struct sweep_state<E, Segment, sweep_role::materialized> {
  using Op = typename E::op;
  using value_type = typename E::value_type;
  using static_shape = typename E::static_shape;
  static constexpr bool fused = LinearFullReduction<Op>;

  Extents extents;
  scratch_t<value_type, static_shape> value;
  scratch_t<value_type, static_shape> grad;  // what the parent segment's sweep sends back
  using access_type = segment_access<value_type, static_shape, Segment>;
  using registers = typename access_type::lanes_type;
  access_type access;

  template <class Sinks>
  sweep_state(const E& e, const Extents& segment, Sinks& sinks)
      : extents(e.extents()),
        value(make_scratch<value_type, static_shape>(extents.size())),
        grad(make_scratch<value_type, static_shape>(extents.size(), value_type(0))),
        access(value.data(), extents, segment, E::takes_grad ? grad.data() : nullptr),
        operands_(e, sinks) {}

  // Post-order: operands' own materialised nodes, then operand values, then this value.
  void forward() {
    operands_.for_each([&](auto, auto& o) {
      using operand = std::remove_reference_t<decltype(o)>;
      o.state.forward();
      if constexpr (fused) {
        value_type total(0);
        run_segment<typename operand::static_shape>(o.state, o.extents, sum_values<value_type>{&total});
        std::fill_n(value.data(), extents.size(), total * Op::template scale<value_type>(o.extents.size()));
      } else if constexpr (!operand::is_leaf) {
        run_segment<typename operand::static_shape>(o.state, o.extents, store_values<value_type>{o.values.data()});
      }
    });
    if constexpr (!fused) Op::value(value.data(), operands_.template view<value_type>());
    access.load();
  }

  void fold(const registers& r) { access.fold(r); }

  // After the parent segment's loop: collect this node's gradient, then sweep its operands.
  void finish() {
    access.finish();
    if constexpr (E::takes_grad) {
      operands_.for_each([&]<std::size_t I>(std::integral_constant<std::size_t, I>, auto& o) {
        using operand = std::remove_reference_t<decltype(o)>;
        if constexpr (operand::takes_grad) {
          if constexpr (fused) {
            o.upstream[0] = grad[0] * Op::template scale<value_type>(o.extents.size());
          } else {
            Op::template vjp<I>(o.upstream.data(), grad.data(), operands_.template view<value_type>(), value.data());
          }
          o.upstream_access.load();
          if constexpr (!operand::is_leaf && !fused) {
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

  template <int N, bool Keep, bool Known = false>
  using frame = memory_frame_t<decltype(access), value_type, N>;

 private:
  operand_pack<E> operands_;
};

}  // namespace fusegrad::detail
