// expr/random_static_coverage_test.cpp -- which operations the static layer's random programs draw
// (support/smooth_blocks.hpp, support/static_structured_blocks.hpp), and why the others are left to the tape's
// random programs (tests/tape/bridge_random*_test.cpp, which draw every operation): an operation added to ops.hpp
// fails here until it joins a static block table or that list.
#include <cstddef>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <boost/mp11/algorithm.hpp>

#include <fusegrad/fusegrad.hpp>

#include "support/random_programs.hpp"
#include "support/smooth_blocks.hpp"
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

// Operations whose parameters are run-time shapes, axis orders or indices made from the operand's shape
// (the tape's shape blocks build them from the tensor in hand), or whose gradient at ties needs offsets made
// from the operand's values (the tape's structured blocks add them): the static programs leave them to the tape.
const std::map<std::string, std::string> left_to_the_tape = {
    {"max", "ties"},
    {"min", "ties"},
    {"argmax", "ties"},
    {"argmin", "ties"},
    {"reshape", "a run-time shape"},
    {"flatten", "a run-time shape"},
    {"squeeze", "a run-time shape"},
    {"unsqueeze", "a run-time shape"},
    {"permute", "a run-time axis order"},
    {"broadcast_to", "a run-time shape"},
    {"slice", "run-time bounds"},
    {"select", "a run-time index"},
    {"index_select", "run-time indices"},
    {"gather", "run-time indices"},
    {"cat", "run-time split points"},
};

TEST(RandomStaticPrograms, DrawEveryOperationButThoseLeftToTheTape) {
  std::set<std::string> drawn;
  add_drawn<fg::test::SmoothBlocks>(drawn);
  add_drawn<fg::test::StaticStructuredBlocks>(drawn);
  const auto expect_drawn = [&](auto op) {
    const std::string name(decltype(op)::name);
    if (left_to_the_tape.contains(name)) {
      EXPECT_FALSE(drawn.contains(name)) << name
                                         << " is drawn now: take it off the list of operations left to the tape";
    } else {
      EXPECT_TRUE(drawn.contains(name)) << "no static random-program block records " << name
                                        << "; add one to support/static_structured_blocks.hpp, or say in "
                                        << "left_to_the_tape why it cannot be";
    }
  };
  boost::mp11::mp_for_each<fg::unary_ops>(expect_drawn);
  boost::mp11::mp_for_each<fg::binary_ops>(expect_drawn);
  boost::mp11::mp_for_each<fg::materialized_ops>(expect_drawn);
}

}  // namespace
