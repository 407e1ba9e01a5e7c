// expr/sweep/hoisted_state.hpp -- a loop-invariant element-wise sub-tree, run once outside its parent's loop.
#pragma once

#include <fusegrad/expr/segment_access.hpp>
#include <fusegrad/expr/storage.hpp>
#include <fusegrad/expr/sweep/leaf_state.hpp>
#include <fusegrad/expr/sweep/protocol.hpp>
#include <fusegrad/expr/sweep/segment_loop.hpp>
#include <fusegrad/shape/extents.hpp>

namespace fusegrad::detail {

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
  using registers = typename access_type::template registers_for<E::takes_grad>;
  static constexpr gradient_target grad_target = access_type::template target_for<E::takes_grad>;
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
  void unreached() {}  // its gradient is added to, from zeros: sweeping it back sends zeros on
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

}  // namespace fusegrad::detail
