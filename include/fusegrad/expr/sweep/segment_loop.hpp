// expr/sweep/segment_loop.hpp -- run_segment: the strip-mined loop over one segment, and what consumes its values.
#pragma once

#include <cstddef>
#include <type_traits>

#include <Eigen/Core>

#include <fusegrad/detail/carried_sum.hpp>
#include <fusegrad/expr/segment_access.hpp>
#include <fusegrad/expr/sweep/protocol.hpp>
#include <fusegrad/shape/any_shape.hpp>
#include <fusegrad/shape/extents.hpp>

namespace fusegrad::detail {

// A consumer of a segment's values that carries lanes across blocks, added up after the loop by fold() (sum_values).
template <class C>
concept FoldingConsumer = requires(std::remove_reference_t<C>& consume) {
  consume.fold();
};

// Runs the strip-mined loop of the segment rooted at `state`. Per block it builds the
// root's frame, hands the block value to consume(value, offset), and, when an upstream
// access is given, runs the block's reverse sweep. Every block has a length known at compile time.
// With Known, `known` holds the root's values from an earlier pass and the root reads them
// instead of recomputing (a materialised operand's backward sweep). A template parameter,
// not a run-time flag, so that ordinary segments do not instantiate the second frame kind.
// Always inlined, like the drivers in grad.hpp: see the note there on where the sweep is compiled.
template <class Segment, bool Known = false, SweepState State, class Consume, class Upstream = std::nullptr_t>
[[gnu::always_inline]] inline void run_segment(State& state, const Extents& segment, Consume&& consume,
                                               Upstream* upstream = nullptr,
                                               const typename State::value_type* known = nullptr) {
  using T = typename State::value_type;
  constexpr Eigen::Index B = block_length;
  constexpr bool sweeps_back = !std::is_same_v<Upstream, std::nullptr_t>;
  static_assert(!sweeps_back || SweepUpstream<Upstream, T>,
                "run_segment: the upstream gradient does not follow the sweep's protocol (uniform, values_at)");
  static_assert(std::is_copy_assignable_v<std::remove_reference_t<Consume>>,
                "run_segment: a consumer of block values is copied into and out of the loop (see run_blocks)");
  // The segment's accumulators: a local, never stored in a frame; the loops work on copies of it
  // (see run_blocks), which the compiler keeps in registers.
  typename State::registers registers{};
  // One block, on the accumulators and the consumer it is handed.
  auto block = [&]<int N>(std::integral_constant<int, N>, Eigen::Index offset, Eigen::Index n, auto& lanes,
                          auto& sink) {
    auto sweep = [&](auto& frame) {
      static_assert(BlockConsumer<decltype(sink), decltype(frame.value())>,
                    "run_segment: a consumer of block values takes each block's values and its offset");
      sink(frame.value(), offset);
      if constexpr (!sweeps_back) {
        // forward only
      } else if constexpr (Upstream::uniform) {  // one upstream value for the whole segment
        frame.backward(Eigen::Array<T, N, 1>::Constant(n, upstream->uniform_value()), lanes);
      } else {
        frame.backward(const_block_map<T, N>(upstream->values_at(offset), n), lanes);
      }
    };
    if constexpr (Known) {
      using frame_type = typename State::template frame<N, false, true>;
      static_assert(KnownSweepFrame<frame_type, State, N>,
                    "a node's block frame over kept values does not follow the sweep's protocol");
      frame_type frame(state, offset, n, known);
      sweep(frame);
    } else {
      using frame_type = typename State::template frame<N, false>;
      static_assert(SweepFrame<frame_type, State, N>, "a node's block frame does not follow the sweep's protocol");
      frame_type frame(state, offset, n);
      sweep(frame);
    }
  };
  // Runs blocks of length N from `from` while one fits, and returns where it stopped. Each run
  // works on copies of the accumulators and the consumer, scoped to it and copied back after, so
  // the compiler keeps the copies in registers however large the function the sweep is inlined
  // into: accumulators that live across a call get a stack slot, and each block would store and
  // reload them, every addition waiting on the store before it. Always inlined, for the same
  // reason (GCC takes the attribute on a lambda only in this spelling).
  auto run_blocks = [&]<int N>(std::integral_constant<int, N> length, Eigen::Index from, Eigen::Index total)
      __attribute__((always_inline)) {
    auto lanes = registers;
    auto sink = consume;
    Eigen::Index i = from;
    for (; i + N <= total; i += N) block(length, i, N, lanes, sink);
    registers = lanes;
    consume = sink;
    return i;
  };
  constexpr std::size_t size = static_size_v<Segment>;
  const auto total = static_cast<Eigen::Index>(size != dyn ? size : segment.size());
  // Segments whose rank is known only at run time (tensors; in the static layer, what matmul, outer and transpose
  // return) are often scalars: their one block, at an offset the compiler knows, on the accumulators themselves.
  constexpr bool often_scalar = std::is_same_v<Segment, AnyShape>;
  if (often_scalar && total == 1) {
    if constexpr (often_scalar) block(std::integral_constant<int, 1>{}, 0, 1, registers, consume);
  } else {
    Eigen::Index i = 0;
    if constexpr (size == dyn || size >= std::size_t(B))  // a static size below B instantiates no full blocks
      i = run_blocks(std::integral_constant<int, int(B)>{}, i, total);
    if constexpr (size == dyn) {
      // The last total % B elements one at a time. A block of one holds every value in a register and needs
      // no size checks; one of run-time length costs a loop per operation, about as much as B - 1 blocks of
      // one for the arithmetic a loss is made of.
      if (i < total) {
        if constexpr (often_scalar) {
          // Out of line: inline, g++ keeps some of a tape node's full-block accumulators in memory, a load and
          // a store in every block (benchmarks/results/b1-b5.md, "Fixed cost per call").
          auto last_elements = [&](Eigen::Index from) __attribute__((noinline)) {
            run_blocks(std::integral_constant<int, 1>{}, from, total);
          };
          last_elements(i);
        } else {
          // On the accumulators themselves, not on copies (run_blocks): copies of the full blocks' lanes would stay
          // in registers across these few blocks, and g++ would keep some of them in memory in the full blocks' loop
          // instead, a load and a store in every block.
          for (; i < total; ++i) block(std::integral_constant<int, 1>{}, i, 1, registers, consume);
        }
      }
    } else if constexpr (size % std::size_t(B) != 0) {
      run_blocks(std::integral_constant<int, int(size % std::size_t(B))>{}, i, total);  // one block
    }
  }
  if constexpr (sweeps_back) {
    const auto folded = registers;  // fold() too may stay out of line: hand it a copy (see run_blocks)
    state.fold(folded);
  }
  if constexpr (FoldingConsumer<Consume>) {
    auto folded_sink = consume;  // likewise
    folded_sink.fold();
  }
}

// Consumers of a segment's block values: consume(block, offset) for each block, and fold() after the loop for one
// that carries lanes across blocks (sum_values, a FoldingConsumer: tests/static/protocols_static_test.cpp).
struct discard_values {
  void operator()(const auto&, Eigen::Index) const noexcept {}
};
template <class T>
struct store_values {  // writes the segment's values into contiguous memory
  T* out;
  template <class D>
  void operator()(const D& v, Eigen::Index offset) const {
    store_block<D::RowsAtCompileTime>(out + offset, v);
  }
};
template <class T>
struct store_values_if_asked {  // store_values where `out` is set, discard_values where it is null
  T* out;
  template <class D>
  void operator()(const D& v, Eigen::Index offset) const {
    if (out) store_values<T>{out}(v, offset);
  }
};
template <class T>
struct sum_values {  // adds up the segment's values: full blocks lane by lane, folded after the loop
  T* total;
  Eigen::Array<T, int(block_length), 1> lanes = zero_block<Eigen::Array<T, int(block_length), 1>>();
  [[no_unique_address]] carry_for_t<T> carried{};  // float lanes pass their sums on to a double
  template <class D>
  void operator()(const D& v, Eigen::Index) {
    if constexpr (D::RowsAtCompileTime == int(block_length)) {
      lanes += v;
      carried.count(lanes);
    } else {
      *total += v.sum();
    }
  }
  void fold() { *total += carried.total(lanes); }
};

// Adds a block's gradient to a single value's lanes (segment_access::lanes): a block as long
// as the lanes is added to them element by element; a shorter block's sum goes to `rest`. A gradient that is one value
// repeated is the same in every block: it is written to `repeated`, which fold() multiplies
// by the segment's length, and no accumulator carries it through the loop. Of a gradient with a uniform factor, u x,
// the lanes add x (a shorter block to `factored_rest`), and fold() multiplies their sum by u (`factor`): the same
// value in every block, so it leaves the loop.
template <int N, class Lanes, class D>
void add_to_lanes(Lanes& lanes, const D& dy) {
  if constexpr (is_uniform_expression_v<D>) {
    lanes.repeated = dy.coeff(0);
  } else if constexpr (N == Lanes::length) {
    if constexpr (has_uniform_factor_v<D>) {
      lanes.factor = uniform_factor(dy);
      add_gradient(lanes.sum, factored_core(dy));
    } else {
      add_gradient(lanes.sum, dy);
    }
    lanes.carried.count(lanes.sum);
  } else if constexpr (has_uniform_factor_v<D>) {
    lanes.factor = uniform_factor(dy);
    lanes.factored_rest += factored_core(dy).sum();
  } else {
    lanes.rest += dy.sum();
  }
}

}  // namespace fusegrad::detail
