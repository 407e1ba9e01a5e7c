// support/smooth_blocks.hpp -- the smooth blocks of the random programs (support/random_programs.hpp): element-wise
// ops and reductions, each one expression of u and a for tensors (tape/bridge_random_test.cpp) and static
// expressions (expr/random_static_programs*_test.cpp) alike.
#pragma once

#include <cstddef>
#include <span>

#include <fusegrad/fusegrad.hpp>

#include "support/block_tables.hpp"

namespace fusegrad::test {

// All are smooth where they are evaluated (arguments of log, sqrt and reciprocal stay at 1 or
// more, pow's base too; the standard deviation, which has a kink where all its values are equal, as two leaf values
// may be, is squared: the variance, smooth there, through stddev's value and VJP), so central differences and the
// complex step apply everywhere.
struct SmoothBlocks : expression_block_table<SmoothBlocks> {
  static constexpr Block table[] = {
      {"sin(u)", 1, true, false},
      {"u * a", 1, true, true},
      {"u - a", 1, true, true},
      {"-u", 1, true, false},
      {"tanh(u) + a", 2, true, true},
      {"log1p(square(u))", 2, true, false},
      {"sigmoid(u - a)", 2, true, true},
      {"cos(u) * u", 2, true, false},
      {"exp(-(u * u))", 3, true, false},
      {"u / (1.0 + a * a)", 3, true, true},
      {"sqrt(1.0 + u * u)", 3, true, false},
      {"log(2.0 + sin(u))", 3, true, false},
      {"expm1(sin(u)) * a", 3, true, true},
      {"reciprocal(2.0 + cos(u))", 3, true, false},
      {"tan(0.5 * sin(u))", 3, true, false},
      {"pow(1.0 + u * u, a)", 4, true, true},
      {"u - mean(u)", 2, true, false},
      {"u * sum(a)", 2, true, false},
      {"u - logsumexp(u)", 2, true, false},
      {"softmax(u, all_axes) * a", 4, true, true},
      {"u * prod(cos(a)) + variance<0>(u)", 4, true, false, 1},
      {"softplus(u) - log_sigmoid(a)", 3, false, true},
      {"log1mexp(-0.5 - u * u)", 3, false, false},
      {"u * square(stddev<0>(a))", 3, true, false},
  };
  static constexpr std::span<const Block> blocks = table;

  /// Block K of u and a, as the table writes it.
  template <std::size_t K, class U, class A>
  static auto expression(const U& u, const A& a) {
    static_assert(K < std::size(table), "no such block");
    if constexpr (K == 0)
      return sin(u);
    else if constexpr (K == 1)
      return u * a;
    else if constexpr (K == 2)
      return u - a;
    else if constexpr (K == 3)
      return -u;
    else if constexpr (K == 4)
      return tanh(u) + a;
    else if constexpr (K == 5)
      return log1p(square(u));
    else if constexpr (K == 6)
      return sigmoid(u - a);
    else if constexpr (K == 7)
      return cos(u) * u;
    else if constexpr (K == 8)
      return exp(-(u * u));
    else if constexpr (K == 9)
      return u / (1.0 + a * a);
    else if constexpr (K == 10)
      return sqrt(1.0 + u * u);
    else if constexpr (K == 11)
      return log(2.0 + sin(u));
    else if constexpr (K == 12)
      return expm1(sin(u)) * a;
    else if constexpr (K == 13)
      return reciprocal(2.0 + cos(u));
    else if constexpr (K == 14)
      return tan(0.5 * sin(u));
    else if constexpr (K == 15)
      return pow(1.0 + u * u, a);
    else if constexpr (K == 16)
      return u - mean(u);
    else if constexpr (K == 17)
      return u * sum(a);
    else if constexpr (K == 18)
      return u - logsumexp(u);
    else if constexpr (K == 19)
      return softmax(u, all_axes) * a;
    else if constexpr (K == 20)
      return u * prod(cos(a)) + variance<0>(u);
    else if constexpr (K == 21)
      return softplus(u) - log_sigmoid(a);
    else if constexpr (K == 22)
      return log1mexp(-0.5 - u * u);
    else
      return u * square(stddev<0>(a));
  }
};
static_assert(std::size(SmoothBlocks::table) == 24,
              "SmoothBlocks::expression<K>() has one case per block of the table");

}  // namespace fusegrad::test
