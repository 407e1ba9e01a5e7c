// support/static_structured_blocks.hpp -- blocks of the static layer's random programs
// (support/random_static_programs.hpp) with kinks, steps, comparisons, running sums, matrix products and einsum: one
// expression of u and a for static expressions and tensors alike.
#pragma once

#include <cstddef>
#include <numbers>
#include <span>

#include <fusegrad/fusegrad.hpp>

#include "support/block_tables.hpp"

namespace fusegrad::test {

// Where the kinks and steps are: sin(u) and cos(u) against 1/pi, 1/e and 1/sqrt(2), which no program of
// these blocks over multiples of 1/8 meets (tape/bridge_random_structured_test.cpp says why).
constexpr double inv_pi = std::numbers::inv_pi;
constexpr double inv_e = 1 / std::numbers::e;
constexpr double inv_sqrt2 = 1 / std::numbers::sqrt2;

struct StaticStructuredBlocks : expression_block_table<StaticStructuredBlocks> {
  static constexpr Block table[] = {
      {"abs(sin(u) - inv_pi) * a", 4, false, true},
      {"relu(cos(u) - inv_e) + u", 4, false, false},
      {"maximum(sin(u), a + inv_sqrt2)", 3, false, true},
      {"minimum(cos(u), inv_sqrt2 - a)", 3, false, true},
      {"cumsum(u, axes<0>)", 1, true, false, 1, 2},
      {"u + 0.1 * matmul(u, matmul(transpose(u), u))", 5, true, false, 2, 2},
      {"u + 0.1 * matmul(outer(u, sin(u)), u)", 5, true, false, 1, 1},
      {"clamp(sin(u), -inv_e, inv_pi) * a", 3, false, true},
      {"where(sin(u) > inv_pi, u * a, exp(u))", 5, false, true},
      {"einsum<\"...,...->...\">(cos(u), u) * a", 3, true, true},
      {"u * (cos(u) < inv_e) + sin(u) * (sin(u) >= inv_pi)", 8, false, false},
      {"u * eq(u, u) * (cos(u) <= inv_sqrt2) + ne(sin(u), 2.0)", 8, false, false},
      {"clone(u) * sin(u)", 2, true, false},
  };
  static constexpr std::span<const Block> blocks = table;

  template <std::size_t K, class U, class A>
  static auto expression(const U& u, const A& a) {
    if constexpr (K == 0)
      return abs(sin(u) - inv_pi) * a;
    else if constexpr (K == 1)
      return relu(cos(u) - inv_e) + u;
    else if constexpr (K == 2)
      return maximum(sin(u), a + inv_sqrt2);
    else if constexpr (K == 3)
      return minimum(cos(u), inv_sqrt2 - a);
    else if constexpr (K == 4)
      return cumsum(u, axes<0>);
    else if constexpr (K == 5)
      return u + 0.1 * matmul(u, matmul(transpose(u), u));
    else if constexpr (K == 6)
      return u + 0.1 * matmul(outer(u, sin(u)), u);
    else if constexpr (K == 7)
      return clamp(sin(u), -inv_e, inv_pi) * a;
    else if constexpr (K == 8)
      return where(sin(u) > inv_pi, u * a, exp(u));
    else if constexpr (K == 9)
      return einsum<"...,...->...">(cos(u), u) * a;
    else if constexpr (K == 10)
      return u * (cos(u) < inv_e) + sin(u) * (sin(u) >= inv_pi);
    else if constexpr (K == 11)
      return u * eq(u, u) * (cos(u) <= inv_sqrt2) + ne(sin(u), 2.0);
    else
      return clone(u) * sin(u);
  }
};
static_assert(std::size(StaticStructuredBlocks::table) == 13,
              "StaticStructuredBlocks::expression<K>() has one case per block of the table");

}  // namespace fusegrad::test
