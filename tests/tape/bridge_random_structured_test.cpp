// tape/bridge_random_structured_test.cpp -- random programs of blocks with kinks, extrema, running sums and matrix
// products (support/random_programs.hpp), and the test that the block tables together draw every operation.
#include <cstddef>
#include <numbers>
#include <set>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>
#include <boost/mp11/algorithm.hpp>

#include <fusegrad/fusegrad.hpp>

#include "support/block_parameters.hpp"
#include "support/random_programs.hpp"

namespace {

namespace fg = fusegrad;
using fg::test::Block;

// Where the kinks are. Leaves hold multiples of 1/8 and blocks add and multiply them and their
// constants, so a kink at a fixed point of u (abs at u = -c) is met exactly by some program, and
// central differences straddle it. The kinked ops therefore read sin(u) or cos(u), offset by
// 1/pi, 1/e or 1/sqrt(2): no program of these blocks gives sin or cos of its value equal to such a
// number.
constexpr double abs_kink = std::numbers::inv_pi;
constexpr double relu_kink = 1 / std::numbers::e;
constexpr double extremum_kink = 1 / std::numbers::sqrt2;

// Offsets that break ties before an extremum (support/block_parameters.hpp says why they work), shaped like u.
template <class T>
fg::BasicTensor<T> tie_breaker(const fg::BasicTensor<T>& u) {
  return fg::BasicTensor<T>::from(fg::test::tie_offsets<T>(u.eigen()), u.shape());
}

struct StructuredBlocks {
  static constexpr Block table[] = {
      {"abs(sin(u) - 1/pi) * a", 4, false, true},
      {"relu(cos(u) - 1/e) + u", 4, false, false},
      {"maximum(sin(u), a + 1/sqrt2)", 3, false, true},
      {"u - max(u + ties)", 3, false, false},
      {"u * min(u + ties)", 3, false, false},
      {"u * argmax(u + ties)", 3, false, false},
      {"u - argmin(u + ties)", 3, false, false},
      {"cumsum(u, axes<0>)", 1, true, false, 1, 8},
      {"u + 0.1 * matmul(u, matmul(transpose(u), u))", 5, true, false, 2, 2},
      {"u + 0.1 * matmul(outer(u, sin(u)), u)", 5, true, false, 1, 1},
      {"minimum(cos(u), 1/sqrt2 - a)", 3, false, true},
  };
  static constexpr std::span<const Block> blocks = table;

  template <class T, class Record>
  static fg::BasicTensor<T> apply(int block, const fg::BasicTensor<T>& u, const fg::BasicTensor<T>& a, Record record) {
    switch (block) {
      case 7:
        return record(fg::cumsum(u, fg::axes<0>));
      case 8:
        return record(u + 0.1 * fg::matmul(u, fg::matmul(fg::transpose(u), u)));
      case 9:
        return record(u + 0.1 * fg::matmul(fg::outer(u, fg::sin(u)), u));
      default:
        break;
    }
    if constexpr (std::is_floating_point_v<T>) {
      switch (block) {
        case 0:
          return record(fg::abs(fg::sin(u) - abs_kink) * a);
        case 1:
          return record(fg::relu(fg::cos(u) - relu_kink) + u);
        case 2:
          return record(fg::maximum(fg::sin(u), a + extremum_kink));
        case 3:
          return record(u - fg::max(u + tie_breaker(u)));
        case 4:
          return record(u * fg::min(u + tie_breaker(u)));
        case 5:
          return record(u * fg::argmax(u + tie_breaker(u)));
        case 6:
          return record(u - fg::argmin(u + tie_breaker(u)));
        case 10:
          return record(fg::minimum(fg::cos(u), extremum_kink - a));
        default:
          break;
      }
    }
    throw std::logic_error("no block " + std::to_string(block) + " for this scalar type");
  }
};
static_assert(std::size(StructuredBlocks::table) == 11, "apply() has one case per block of the table");
[[maybe_unused]] const bool structured_blocks_registered = fg::test::register_block_table<StructuredBlocks>();

RC_GTEST_PROP(BridgeRandom, StructuredProgramsAgree, ()) { fg::test::check_random_program<StructuredBlocks>(); }

// Every operation of ops.hpp appears in some block of this executable's tables: an op added to
// the library without a block fails here, by name.
TEST(BridgeRandom, TheBlocksDrawEveryOperation) {
  std::set<std::string> drawn;
  for (auto op_names : fg::test::block_tables()) drawn.merge(op_names());
  ASSERT_GE(fg::test::block_tables().size(), 2u) << "both block tables registered";
  auto expect_drawn = [&](auto op) {
    const std::string name(decltype(op)::name);
    EXPECT_TRUE(drawn.contains(name)) << "no random-program block records " << name
                                      << "; add one to a table in tests/tape/bridge_random*_test.cpp";
  };
  boost::mp11::mp_for_each<fg::unary_ops>(expect_drawn);
  boost::mp11::mp_for_each<fg::binary_ops>(expect_drawn);
  boost::mp11::mp_for_each<fg::materialized_ops>(expect_drawn);
}

}  // namespace
