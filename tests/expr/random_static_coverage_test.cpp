// expr/random_static_coverage_test.cpp -- the static layer's random programs draw every operation: the blocks of
// their tables (support/smooth_blocks.hpp, support/static_structured_blocks.hpp, support/static_shape_blocks.hpp)
// record every operation of ops.hpp, and each test's programs draw every block of its table (the seeds are chosen
// so, support/static_program_generator.hpp). An operation added to ops.hpp fails here until a block records it.
#include <cstddef>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <boost/mp11/algorithm.hpp>

#include <fusegrad/fusegrad.hpp>

#include "support/random_programs.hpp"
#include "support/smooth_blocks.hpp"
#include "support/static_shape_blocks.hpp"
#include "support/static_structured_blocks.hpp"

namespace {

namespace fg = fusegrad;

// The operations of a table's blocks, read off their expressions over tensors of a rank each accepts
// (nothing is recorded).
template <class B>
void add_drawn(std::set<std::string>& names) {
  boost::mp11::mp_for_each<boost::mp11::mp_iota_c<std::size(B::table)>>([&](auto k) {
    const fg::test::Block& block = B::table[k];
    const std::size_t rank = std::max<std::size_t>(block.min_rank, std::min<std::size_t>(2, block.max_rank));
    const std::vector<std::size_t> extents(rank, 3);
    const auto t = fg::Tensor::full(fg::Extents(std::span<const std::size_t>(extents)), 0.5);
    fg::test::add_op_names(B::template expression<k>(t, t), names);
  });
}

TEST(RandomStaticPrograms, DrawEveryOperation) {
  std::set<std::string> drawn;
  add_drawn<fg::test::SmoothBlocks>(drawn);
  add_drawn<fg::test::StaticStructuredBlocks>(drawn);
  add_drawn<fg::test::StaticShapeBlocks>(drawn);
  const auto expect_drawn = [&](auto op) {
    const std::string name(decltype(op)::name);
    EXPECT_TRUE(drawn.contains(name)) << "no static random-program block records " << name
                                      << "; add one to a table of support/static_*_blocks.hpp";
  };
  boost::mp11::mp_for_each<fg::unary_ops>(expect_drawn);
  boost::mp11::mp_for_each<fg::binary_ops>(expect_drawn);
  boost::mp11::mp_for_each<fg::materialized_ops>(expect_drawn);
}

}  // namespace
