// expr/sweep.hpp -- the fused reverse sweep: where the static graph becomes loops.
//
// Its parts, in expr/sweep/: the protocol every node's state and frame follow (protocol.hpp),
// a block's values and gradients as Eigen expressions (block_values.hpp), the segment loop
// (segment_loop.hpp), and the state and block frame of each node kind:
// leaves (leaf_state.hpp), element-wise nodes (elementwise_state.hpp), loop-invariant
// sub-trees (hoisted_state.hpp), materialised nodes (materialized_state.hpp).
//
// The rule for what is kept (decided at compile time from the op specs' `needs`):
//  * The tree is cut into segments: maximal element-wise sub-trees. A segment runs as ONE
//    strip-mined loop; per block of `block_length` elements every node of the segment is
//    evaluated, then the reverse sweep of that block runs, then the next block follows.
//    Inputs are read once and gradients written once per block, like a hand-written loop.
//  * Inside a block a node's value is stored (a fixed-size Eigen array) when its own VJP
//    reads its output, its parent's VJP reads its inputs, its op gives value and slope
//    together (sin, cos: TakesValueWithSlope), or its lazy expression would nest deeper than
//    max_lazy_depth (sweep/block_values.hpp). Otherwise it stays a lazy Eigen expression inlined
//    into its parent, used exactly once. So nothing is computed
//    twice, and a chain of 30 nested tanh costs 30 tanh per element forward, not 30^2.
//  * An upstream gradient shared by two operands that both need it is evaluated once per
//    block, so binary trees cost linear, never exponential, work.
//  * Materialised nodes (matmul, axis reductions ...) keep their whole value: they are the
//    boundaries between segments. So does the root of each operand segment below them (its
//    values are the node's input); the nodes inside that segment are recomputed block by
//    block during the reverse sweep instead of being stored. Static shapes up to
//    max_fixed_bytes (expr/storage.hpp) need no heap.
#pragma once

#include <fusegrad/expr/sweep/elementwise_state.hpp>
#include <fusegrad/expr/sweep/hoisted_state.hpp>
#include <fusegrad/expr/sweep/leaf_state.hpp>
#include <fusegrad/expr/sweep/materialized_state.hpp>
#include <fusegrad/expr/sweep/protocol.hpp>
#include <fusegrad/expr/sweep/segment_loop.hpp>
