// expr/random_static_programs_test.cpp -- random programs in the static layer (support/random_static_programs.hpp):
// value_and_grad == one fused tape node == fg::taped == gradcheck, for programs of the smooth blocks drawn at compile
// time, with values drawn by RapidCheck.
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include "support/random_static_programs.hpp"
#include "support/smooth_blocks.hpp"

namespace {

namespace fg = fusegrad;
using fg::test::SmoothBlocks;

// The programs of 3 to 6 blocks, from the FUSEGRAD_STATIC_PROGRAM_OFFSET-th on (a CMake cache variable, 0 by
// default: -DFUSEGRAD_STATIC_PROGRAM_OFFSET=100 checks other programs).
constexpr auto seeds = fg::test::program_seeds<SmoothBlocks, 12>(FUSEGRAD_STATIC_PROGRAM_OFFSET);
template <std::size_t N>
using program = std::integral_constant<std::uint64_t, seeds[N]>;

template <class Seed>
class RandomStaticPrograms : public ::testing::Test {};
using Programs = ::testing::Types<program<0>, program<1>, program<2>, program<3>, program<4>, program<5>, program<6>,
                                  program<7>, program<8>, program<9>, program<10>, program<11>>;
TYPED_TEST_SUITE(RandomStaticPrograms, Programs);

TYPED_TEST(RandomStaticPrograms, StaticTapeAndReferencesAgree) {
  EXPECT_TRUE(rc::check([] { fg::test::check_random_static_program<SmoothBlocks, TypeParam::value>(); }));
}

}  // namespace
