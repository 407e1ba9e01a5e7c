// tape/bridge_random_test.cpp -- random programs of smooth element-wise blocks and reductions
// (support/random_programs.hpp): fused == taped == central differences == complex step.
#include <cstddef>
#include <span>
#include <stdexcept>
#include <type_traits>

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <fusegrad/fusegrad.hpp>

#include "support/random_programs.hpp"

namespace {

namespace fg = fusegrad;
using fg::test::Block;

// All are smooth where they are evaluated (arguments of log, sqrt and reciprocal stay at 1 or
// more, pow's base too), so central differences apply everywhere.
struct SmoothBlocks {
  static constexpr Block table[] = {
      {"sin(u)", 1, true, false},
      {"u * a", 1, true, true},
      {"u - a", 1, true, true},
      {"-u", 1, true, false},
      {"tanh(u) + a", 2, true, true},
      {"log1p(square(u))", 2, true, false},
      {"sigmoid(u - a)", 2, true, true},
      {"cos(u) * u", 2, true, false},
      {"exp(-(u * u))", 3, true, false},
      {"u / (1.0 + a * a)", 3, true, true},
      {"sqrt(1.0 + u * u)", 3, true, false},
      {"log(2.0 + sin(u))", 3, true, false},
      {"expm1(sin(u)) * a", 3, true, true},
      {"reciprocal(2.0 + cos(u))", 3, true, false},
      {"tan(0.5 * sin(u))", 3, true, false},
      {"pow(1.0 + u * u, a)", 4, true, true},
      {"u - mean(u)", 2, true, false},
      {"u * sum(a)", 2, true, false},
      {"u - logsumexp(u)", 2, true, false},
      {"softmax(u, all_axes) * a", 4, true, true},
      {"u * prod(cos(a)) + variance<0>(u)", 4, true, false},
      {"softplus(u) - log_sigmoid(a)", 3, false, true},
      {"log1mexp(-0.5 - u * u)", 3, false, false},
  };
  static constexpr std::span<const Block> blocks = table;

  template <class T, class Record>
  static fg::BasicTensor<T> apply(int block, const fg::BasicTensor<T>& u, const fg::BasicTensor<T>& a, Record record) {
    switch (block) {
      case 0:
        return record(fg::sin(u));
      case 1:
        return record(u * a);
      case 2:
        return record(u - a);
      case 3:
        return record(-u);
      case 4:
        return record(fg::tanh(u) + a);
      case 5:
        return record(fg::log1p(fg::square(u)));
      case 6:
        return record(fg::sigmoid(u - a));
      case 7:
        return record(fg::cos(u) * u);
      case 8:
        return record(fg::exp(-(u * u)));
      case 9:
        return record(u / (1.0 + a * a));
      case 10:
        return record(fg::sqrt(1.0 + u * u));
      case 11:
        return record(fg::log(2.0 + fg::sin(u)));
      case 12:
        return record(fg::expm1(fg::sin(u)) * a);
      case 13:
        return record(fg::reciprocal(2.0 + fg::cos(u)));
      case 14:
        return record(fg::tan(0.5 * fg::sin(u)));
      case 15:
        return record(fg::pow(1.0 + u * u, a));
      case 16:
        return record(u - fg::mean(u));
      case 17:
        return record(u * fg::sum(a));
      case 18:
        return record(u - fg::logsumexp(u));
      case 19:
        return record(fg::softmax(u, fg::all_axes) * a);
      case 20:
        return record(u * fg::prod(fg::cos(a)) + fg::variance<0>(u));
      case 21:
        if constexpr (std::is_floating_point_v<T>) return record(fg::softplus(u) - fg::log_sigmoid(a));
        break;
      default:
        if constexpr (std::is_floating_point_v<T>) return record(fg::log1mexp(-0.5 - u * u));
        break;
    }
    throw std::logic_error("a block that is not analytic has no complex form");
  }
};
static_assert(std::size(SmoothBlocks::table) == 23, "apply() has one case per block of the table");
[[maybe_unused]] const bool registered = fg::test::register_block_table<SmoothBlocks>();

RC_GTEST_PROP(BridgeRandom, FusedTapedAndFiniteDifferencesAgree, ()) { fg::test::check_random_program<SmoothBlocks>(); }

}  // namespace
