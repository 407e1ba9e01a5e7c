// expr/random_static_shape_programs_test.cpp -- random programs in the static layer
// (support/random_static_programs.hpp) over blocks that reshape, permute, broadcast, slice, index, join and take
// extrema (support/static_shape_blocks.hpp): value_and_grad == one fused tape node == fg::taped == gradcheck
// (central differences where a block takes an extremum).
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <fusegrad/fusegrad.hpp>

#include "support/random_static_programs.hpp"
#include "support/static_shape_blocks.hpp"

namespace {

namespace fg = fusegrad;
using fg::test::StaticShapeBlocks;

template <class Seed>
class RandomStaticShapePrograms : public ::testing::Test {};
using ShapePrograms = fg::test::static_program_types<StaticShapeBlocks, 10>;
TYPED_TEST_SUITE(RandomStaticShapePrograms, ShapePrograms);

TYPED_TEST(RandomStaticShapePrograms, StaticTapeAndReferencesAgree) {
  EXPECT_TRUE(rc::check([] { fg::test::check_random_static_program<StaticShapeBlocks, TypeParam::value>(); }));
}

}  // namespace
