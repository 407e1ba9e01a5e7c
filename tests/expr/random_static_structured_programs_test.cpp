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

template <class Seed>
class RandomStaticStructuredPrograms : public ::testing::Test {};
using StructuredPrograms = fg::test::static_program_types<StaticStructuredBlocks, 10>;
TYPED_TEST_SUITE(RandomStaticStructuredPrograms, StructuredPrograms);

TYPED_TEST(RandomStaticStructuredPrograms, StaticTapeAndReferencesAgree) {
  EXPECT_TRUE(rc::check([] { fg::test::check_random_static_program<StaticStructuredBlocks, TypeParam::value>(); }));
}

}  // namespace
