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

template <class Seed>
class RandomStaticPrograms : public ::testing::Test {};
using SmoothPrograms = fg::test::static_program_types<SmoothBlocks, 14>;
TYPED_TEST_SUITE(RandomStaticPrograms, SmoothPrograms);

TYPED_TEST(RandomStaticPrograms, StaticTapeAndReferencesAgree) {
  EXPECT_TRUE(rc::check([] { fg::test::check_random_static_program<SmoothBlocks, TypeParam::value>(); }));
}

}  // namespace
