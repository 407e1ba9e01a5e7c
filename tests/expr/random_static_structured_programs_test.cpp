// expr/random_static_structured_programs_test.cpp -- random programs in the static layer
// (support/random_static_programs.hpp) over blocks with kinks, steps, running sums, matrix products and einsum:
// value_and_grad == one fused tape node == fg::taped == gradcheck (central differences where a block has a kink).
#include <cstddef>
#include <cstdint>
#include <numbers>
#include <span>
#include <type_traits>

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <fusegrad/fusegrad.hpp>

#include "support/random_programs.hpp"
#include "support/random_static_programs.hpp"

namespace {

namespace fg = fusegrad;
using fg::test::Block;

// Where the kinks and steps are: sin(u) and cos(u) against 1/pi, 1/e and 1/sqrt(2), which no program of
// these blocks over multiples of 1/8 meets (tape/bridge_random_structured_test.cpp says why).
constexpr double inv_pi = std::numbers::inv_pi;
constexpr double inv_e = 1 / std::numbers::e;
constexpr double inv_sqrt2 = 1 / std::numbers::sqrt2;

struct StaticStructuredBlocks {
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
      {"sin(u) * u", 2, true, false},
  };
  static constexpr std::span<const Block> blocks = table;

  template <std::size_t K, class U, class A>
  static auto expression(const U& u, const A& a) {
    if constexpr (K == 0)
      return fg::abs(fg::sin(u) - inv_pi) * a;
    else if constexpr (K == 1)
      return fg::relu(fg::cos(u) - inv_e) + u;
    else if constexpr (K == 2)
      return fg::maximum(fg::sin(u), a + inv_sqrt2);
    else if constexpr (K == 3)
      return fg::minimum(fg::cos(u), inv_sqrt2 - a);
    else if constexpr (K == 4)
      return fg::cumsum(u, fg::axes<0>);
    else if constexpr (K == 5)
      return u + 0.1 * fg::matmul(u, fg::matmul(fg::transpose(u), u));
    else if constexpr (K == 6)
      return u + 0.1 * fg::matmul(fg::outer(u, fg::sin(u)), u);
    else if constexpr (K == 7)
      return fg::clamp(fg::sin(u), -inv_e, inv_pi) * a;
    else if constexpr (K == 8)
      return fg::where(fg::sin(u) > inv_pi, u * a, fg::exp(u));
    else if constexpr (K == 9)
      return fg::einsum<"...,...->...">(fg::cos(u), u) * a;
    else
      return fg::sin(u) * u;
  }

  template <class T, class Record>
  static fg::BasicTensor<T> apply(int block, const fg::BasicTensor<T>& u, const fg::BasicTensor<T>& a, Record record) {
    return fg::test::apply_block<StaticStructuredBlocks>(block, u, a, record);
  }
};
static_assert(std::size(StaticStructuredBlocks::table) == 11,
              "StaticStructuredBlocks::expression<K>() has one case per block of the table");

// The programs of 3 to 6 blocks, from the FUSEGRAD_STATIC_PROGRAM_OFFSET-th on (a CMake cache variable, 0 by
// default: -DFUSEGRAD_STATIC_PROGRAM_OFFSET=100 checks other programs).
constexpr auto seeds = fg::test::program_seeds<StaticStructuredBlocks, 8>(FUSEGRAD_STATIC_PROGRAM_OFFSET);
template <std::size_t N>
using program = std::integral_constant<std::uint64_t, seeds[N]>;

template <class Seed>
class RandomStaticStructuredPrograms : public ::testing::Test {};
using Programs =
    ::testing::Types<program<0>, program<1>, program<2>, program<3>, program<4>, program<5>, program<6>, program<7>>;
TYPED_TEST_SUITE(RandomStaticStructuredPrograms, Programs);

TYPED_TEST(RandomStaticStructuredPrograms, StaticTapeAndReferencesAgree) {
  EXPECT_TRUE(rc::check([] { fg::test::check_random_static_program<StaticStructuredBlocks, TypeParam::value>(); }));
}

}  // namespace
