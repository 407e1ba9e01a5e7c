// support/static_program_generator.hpp -- the random programs of the static layer, drawn at compile time: a
// constexpr generator growing trees of blocks from a seed (as gen_program in support/random_programs.hpp grows them
// from RapidCheck's choices), the seeds of the programs worth compiling, and GoogleTest's type list of them.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <type_traits>
#include <utility>

#include <gtest/gtest.h>

#include "support/block_tables.hpp"
#include "support/random_programs.hpp"

// Which programs the tests take: the first of them, in order of seed (tests/CMakeLists.txt sets it).
#ifndef FUSEGRAD_STATIC_PROGRAM_OFFSET
#define FUSEGRAD_STATIC_PROGRAM_OFFSET 0
#endif

namespace fusegrad::test {

inline constexpr std::size_t max_static_rank = 2;
inline constexpr std::size_t max_static_nodes = 26;
inline constexpr std::size_t max_static_leaves = 13;

struct static_extents {
  std::size_t rank = 0;
  std::size_t extent[max_static_rank]{};
  friend constexpr bool operator==(const static_extents&, const static_extents&) = default;
};

struct static_leaf {
  static_extents shape;
  bool dyn[max_static_rank]{};  // the axes whose extent the type leaves to run time
  bool var = true;              // a Var (takes a gradient) or a Const
};

struct static_program {
  static_extents shape;  // the root's: every block gives back the shape it is grown for
  std::size_t node_count = 0;
  ProgramNode nodes[max_static_nodes]{};  // children before parents; the last is the root
  std::size_t leaf_count = 0;
  static_leaf leaves[max_static_leaves]{};
};

// splitmix64: a small generator whose every step is a constant expression.
struct constexpr_random {
  std::uint64_t state;
  constexpr std::uint64_t next() {
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  constexpr std::size_t below(std::size_t n) { return std::size_t(next() % n); }
  constexpr bool coin() { return (next() >> 63) != 0; }
};

// Which of B's blocks read their operand a, worked out once per table (reading the texts is most of a program's
// cost in constant evaluation, which is bounded).
template <BlockTable B>
inline constexpr auto blocks_reading_a = [] {
  std::array<bool, 64> reads{};
  for (std::size_t b = 0; b < B::blocks.size(); ++b) reads[b] = reads_a(B::blocks[b]);
  return reads;
}();

// Trees grown as gen_program grows them (support/random_programs.hpp), at compile time: a node of shape s
// is a leaf of shape s (an earlier leaf of that shape, or a new one), or a block that fits s's rank and the
// operations left, with subtrees for u and a. Unlike gen_program, an inner node is a block two times in three
// (programs here are few and fixed, so each should hold more), and the root is a block even when the budget
// is smaller than every block. A budget of at most 12 operations makes at most 12 blocks and 13 leaves:
// max_static_nodes and max_static_leaves hold them, and running out is a compile error.
template <BlockTable B>
struct static_program_builder {
  constexpr_random random;
  static_program program{};
  int left = 0;

  constexpr static_extents operand_shape(const static_extents& big) {
    const std::size_t drop = random.below(big.rank + 1);
    static_extents out;
    for (std::size_t i = drop; i < big.rank; ++i) out.extent[out.rank++] = random.coin() ? big.extent[i] : 1;
    return out;
  }

  constexpr int add_node(const ProgramNode& n) {
    if (program.node_count == max_static_nodes) throw std::length_error("static_program: more than max_static_nodes");
    program.nodes[program.node_count] = n;
    return int(program.node_count++);
  }

  constexpr int add_leaf(const static_extents& shape) {
    ProgramNode leaf;
    std::size_t same[max_static_leaves]{}, same_count = 0;
    for (std::size_t k = 0; k < program.leaf_count; ++k)
      if (program.leaves[k].shape == shape) same[same_count++] = k;
    if (same_count && random.coin()) {
      leaf.leaf = int(same[random.below(same_count)]);
    } else {
      if (program.leaf_count == max_static_leaves)
        throw std::length_error("static_program: more than max_static_leaves");
      static_leaf& l = program.leaves[program.leaf_count];
      l.shape = shape;
      for (std::size_t i = 0; i < shape.rank; ++i) l.dyn[i] = random.below(3) == 0;
      l.var = program.leaf_count == 0 || random.coin();
      leaf.leaf = int(program.leaf_count++);
    }
    return add_node(leaf);
  }

  constexpr int grow(const static_extents& shape, const static_extents& big, bool root) {
    int fitting[64]{};
    int fitting_count = 0;
    for (std::size_t b = 0; b < B::blocks.size(); ++b) {
      const Block& block = B::blocks[b];
      if ((block.ops <= left || root) && block.min_rank <= shape.rank && shape.rank <= block.max_rank)
        fitting[fitting_count++] = int(b);
    }
    if (!fitting_count || (!root && (left <= 0 || random.below(3) == 0))) return add_leaf(shape);
    ProgramNode n;
    n.block = fitting[random.below(std::size_t(fitting_count))];
    const Block& block = B::blocks[std::size_t(n.block)];
    left -= block.ops;
    if (!blocks_reading_a<B>[std::size_t(n.block)]) {
      n.u = grow(shape, big, false);
    } else if (!block.broadcasts_with_a) {
      n.u = grow(shape, big, false);
      n.a = grow(operand_shape(big), big, false);
    } else if (random.coin()) {
      n.u = grow(operand_shape(shape), big, false);
      n.a = grow(shape, big, false);
    } else {
      n.u = grow(shape, big, false);
      n.a = grow(operand_shape(shape), big, false);
    }
    return add_node(n);
  }
};

/// The program of a seed: a budget of 4 to 12 operations, over leaves of rank 0 to 2 (mostly 2).
template <BlockTable B>
constexpr static_program make_static_program(std::uint64_t seed) {
  static_program_builder<B> builder{constexpr_random{seed}};
  static_extents big;
  constexpr std::size_t ranks[] = {0, 1, 2, 2};
  big.rank = ranks[builder.random.below(4)];
  for (std::size_t i = 0; i < big.rank; ++i) big.extent[i] = 1 + builder.random.below(3);
  builder.left = 4 + int(builder.random.below(9));
  builder.program.shape = big;
  builder.grow(big, big, true);
  return builder.program;
}

template <BlockTable B, std::uint64_t Seed>
inline constexpr static_program static_program_of = make_static_program<B>(Seed);

/// The seeds of Count programs with 3 to 6 blocks (programs worth their compile time) that between them draw every
/// block of the table, from the `first`-th such program (counting from 0) on, in order of seed: while some block is
/// not drawn, a program is taken only if it draws one; then every program is. Too few programs to draw every block
/// is a compile error where the seeds are made.
template <BlockTable B, std::size_t Count>
constexpr std::array<std::uint64_t, Count> program_seeds(std::size_t first) {
  std::array<std::uint64_t, Count> seeds{};
  bool drawn[64]{};
  std::size_t undrawn = B::blocks.size(), taken = 0, found = 0;
  for (std::uint64_t seed = 1; taken < Count; ++seed) {
    const static_program p = make_static_program<B>(seed);
    std::size_t blocks = 0;
    bool fresh = false;
    for (std::size_t k = 0; k < p.node_count; ++k)
      if (const int b = p.nodes[k].block; b >= 0) {
        ++blocks;
        fresh = fresh || !drawn[b];
      }
    if (blocks < 3 || blocks > 6 || found++ < first || (undrawn && !fresh)) continue;
    for (std::size_t k = 0; k < p.node_count; ++k)
      if (const int b = p.nodes[k].block; b >= 0 && !drawn[b]) {
        drawn[b] = true;
        --undrawn;
      }
    seeds[taken++] = seed;
  }
  if (undrawn)
    throw std::length_error("program_seeds: Count programs from this offset do not draw every block; raise Count");
  return seeds;
}

template <BlockTable B, std::size_t Count>
inline constexpr std::array<std::uint64_t, Count> static_program_seeds =
    program_seeds<B, Count>(FUSEGRAD_STATIC_PROGRAM_OFFSET);

template <BlockTable B, std::size_t Count, std::size_t... N>
auto static_program_types_of(std::index_sequence<N...>)
    -> ::testing::Types<std::integral_constant<std::uint64_t, static_program_seeds<B, Count>[N]>...>;

/// GoogleTest's type list of Count programs of B's blocks (each an integral_constant holding its seed), from
/// the FUSEGRAD_STATIC_PROGRAM_OFFSET-th on (a CMake cache variable, 0 by default: -DFUSEGRAD_STATIC_PROGRAM_OFFSET=100
/// checks other programs): one typed test per program.
template <BlockTable B, std::size_t Count>
using static_program_types = decltype(static_program_types_of<B, Count>(std::make_index_sequence<Count>{}));

}  // namespace fusegrad::test
