// expr/sweep/protocol.hpp -- what every node's sweep state and block frame provide, and the roles nodes play.
//
// Each node kind specialises sweep_state in a header of its own; expr/sweep.hpp includes
// them all, and is what code that runs a sweep includes.
#pragma once

#include <concepts>

#include <Eigen/Core>

#include <fusegrad/concepts.hpp>
#include <fusegrad/expr/segment_access.hpp>
#include <fusegrad/expr/storage.hpp>
#include <fusegrad/expr/sweep/block_values.hpp>

namespace fusegrad::detail {

struct nothing {};

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
  else if constexpr (holds_one_value_v<E> && static_size_v<Segment> != 1)
    return sweep_role::hoisted;
  else
    return sweep_role::fused;
}

// sweep_state<E, Segment>: what one sweep keeps for node E inside a segment shaped Segment.
template <class E, class Segment, sweep_role = role_of<E, Segment>()>
struct sweep_state;

// The protocol. A sweep builds one SweepState per node of a segment (its operands' states
// are members of it), then runs the segment's loop over blocks of the output, and in each
// block builds the root's SweepFrame, which builds its operands' frames.
//
// A node's state for one sweep: made from the node, the segment's extents and the sinks (where leaf gradients go).
// forward() computes what must exist before the loop (the values of materialised and hoisted nodes); the loop's
// register accumulators (`registers`: the lanes of leaves that repeat over the segment, one member per operand) live on
// the loop's stack and come back through fold(r) after it; finish() then sends the gradients collected in memory on (to
// a leaf's sink, into a materialised node's operands). unreached() says that the loop passed the node no gradient at
// all (an operand of a comparison): where the loop would have written a gradient over (grad_write::overwrite), zeros
// are written instead, so that finish() sends zeros on. `grad_target` says where the gradients that reach the node in
// the loop end up (gradient_target): the binary node's frame keeps a uniform factor apart only for lanes.
// `frame<N, Keep, Known>` is the frame type for blocks of N elements (block_length, a static
// size's remainder, or 1 for the last elements of a run-time size): Keep asks it to store its value (a parent reads it
// twice), Known to read its value from memory given to it instead of computing it.
template <class S>
concept SweepState = requires(S& state, const typename S::registers& r) {
  typename S::value_type;
  typename S::registers;
  { S::grad_target } -> std::convertible_to<gradient_target>;
  typename S::template frame<1, false>;
  state.forward();
  state.fold(r);
  state.unreached();
  state.finish();
};

// Where a sweep sends each leaf's gradient (no_gradients, basic_var_sinks, tensor_sinks): sink_for(leaf) is the memory
// its gradient is added to, or null where it takes none.
template <class S, class L>
concept Sinks = requires(S& sinks, const L& leaf) {
  { sinks.sink_for(leaf) } -> std::same_as<typename L::value_type*>;
};
// Sinks that leave a leaf's gradient without its zeros where one materialised node's VJP is the only thing that writes
// it (basic_var_sinks after count_uses, tensor_sinks after take_unfilled): sole_sink_for(leaf) gives that memory, or
// null, and the sweep hands it to the VJP to write whole. Those sinks assert that they model this: without
// sole_sink_for the sweep would add into memory that holds no zeros.
template <class S, class L>
concept SoleSinks = Sinks<S, L> && requires(S& sinks, const L& leaf) {
  { sinks.sole_sink_for(leaf) } -> std::same_as<typename L::value_type*>;
};

// A node's frame for one block of N elements at `offset`: made from its state, offset and
// length (and, when Known, the known values); value() is the block's values as an Eigen
// array expression, backward(dy, registers) adds the block's gradient dy to the operands.
template <class F, class State, int N>
concept block_frame = requires(F& frame, const Eigen::Array<typename State::value_type, N, 1>& dy,
                               typename State::registers& r) {
  frame.value();
  frame.backward(dy, r);
};
template <class F, class State, int N>
concept SweepFrame = std::constructible_from<F, State&, Eigen::Index, Eigen::Index> && block_frame<F, State, N>;

// The frame of a block whose values an earlier pass kept (run_segment's Known): made from its state, offset, length
// and those values; otherwise as SweepFrame.
template <class F, class State, int N>
concept KnownSweepFrame =
    std::constructible_from<F, State&, Eigen::Index, Eigen::Index, const typename State::value_type*> &&
    block_frame<F, State, N>;

// The gradient arriving at a segment's blocks (a segment_access): one value for the whole segment where `uniform`
// (uniform_value()), else each block's values at its offset (values_at(offset)).
template <class U, class T>
concept SweepUpstream = requires(const U& upstream, Eigen::Index offset) {
  { U::uniform } -> std::convertible_to<bool>;
  { upstream.values_at(offset) } -> std::convertible_to<const T*>;
  requires !U::uniform || requires {
    { upstream.uniform_value() } -> std::convertible_to<T>;
  };
};

// What takes a segment's values block by block: called with a block's values (V, an Eigen array expression) and the
// block's offset in the segment.
template <class C, class V>
concept BlockConsumer = std::invocable<C&, const V&, Eigen::Index>;

}  // namespace fusegrad::detail
