// tape/bridge_random_test.cpp -- random programs of smooth element-wise blocks and reductions
// (support/random_programs.hpp, support/smooth_blocks.hpp): fused == taped == central differences == complex step.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include "support/random_programs.hpp"
#include "support/smooth_blocks.hpp"

namespace {

namespace fg = fusegrad;

[[maybe_unused]] const bool smooth_blocks_registered = fg::test::register_block_table<fg::test::SmoothBlocks>();

RC_GTEST_PROP(BridgeRandom, FusedTapedAndFiniteDifferencesAgree, ()) {
  fg::test::check_random_program<fg::test::SmoothBlocks>();
}

}  // namespace
