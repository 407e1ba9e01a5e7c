// expr/random_static_structured_programs_test.cpp -- random programs in the static layer
// (support/random_static_programs.hpp) over blocks with kinks, steps, comparisons, running sums, matrix products
// and einsum (support/static_structured_blocks.hpp): value_and_grad == one fused tape node == fg::taped == gradcheck
// (central differences where a block has a kink).
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <fusegrad/fusegrad.hpp>

#include "support/random_static_programs.hpp"
#include "support/static_structured_blocks.hpp"

namespace {

namespace fg = fusegrad;
using fg::test::StaticStructuredBlocks;

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
