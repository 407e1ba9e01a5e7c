// expr/sweep/leaf_state.hpp -- leaves, and anything else already in memory: read block by block.
#pragma once

#include <type_traits>

#include <Eigen/Core>

#include <fusegrad/expr/segment_access.hpp>
#include <fusegrad/expr/storage.hpp>
#include <fusegrad/expr/sweep/protocol.hpp>
#include <fusegrad/expr/sweep/segment_loop.hpp>
#include <fusegrad/shape/extents.hpp>

namespace fusegrad::detail {

template <class T, int N, bool OverwritesGrad = false>
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
  // Then the gradient has two readers, so a lazy one is evaluated once, into registers
  // (one value repeated stays as it is: add_to_lanes counts it without reading a block).
  template <class D, class Lanes>
  void backward(const D& dy, Lanes& lanes) {
    if constexpr (std::is_empty_v<Lanes>) {
      if (grad) write_grad(dy);
    } else if constexpr (!is_evaluated_v<D> && !is_uniform_expression_v<D>) {
      backward(block_t<T, N>(dy), lanes);
    } else {
      add_to_lanes<N>(lanes, dy);
      if (grad) write_grad(dy);
    }
  }

 private:
  template <class D>
  void write_grad(const D& dy) const {
    if constexpr (OverwritesGrad)
      store_block<N>(grad, dy);
    else
      add_block<N>(grad, dy);
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
using memory_frame_t =
    std::conditional_t<Access::uniform, uniform_frame<T, N>, access_frame<T, N, Access::overwrites_grad>>;

template <class E, class Segment>
struct sweep_state<E, Segment, sweep_role::leaf> {
  using value_type = typename E::value_type;
  using access_type = segment_access<value_type, typename E::static_shape, Segment>;
  // A leaf that takes no gradient (a Const) is passed none (its parents' frames skip it): no lanes to carry.
  using registers = typename access_type::template registers_for<E::takes_grad>;
  static constexpr gradient_target grad_target = access_type::template target_for<E::takes_grad>;
  access_type access;

  // Always inlined: a few stores per leaf, which a call would double for a one-element tape node.
  template <class Sinks>
  [[gnu::always_inline]] sweep_state(const E& leaf, const Extents& segment, Sinks& sinks)
      : access(leaf.data(), leaf.extents(), segment, sinks.sink_for(leaf)) {}

  void forward() { access.load(); }
  void fold(const registers& r) { access.fold(r); }
  void unreached() {}  // a leaf's gradient is added to: no contribution is no write
  void finish() { access.finish(); }

  template <int N, bool Keep, bool Known = false>
  using frame = memory_frame_t<decltype(access), value_type, N>;
};

}  // namespace fusegrad::detail
