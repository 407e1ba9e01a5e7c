// tape/bridge_random_shapes_test.cpp -- random programs of blocks that reshape, permute, broadcast, slice, index,
// compare and select (support/random_programs.hpp): each block gives back a tensor of u's shape, so they nest.
#include <cstddef>
#include <cstdint>
#include <numbers>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <fusegrad/fusegrad.hpp>

#include "support/block_parameters.hpp"
#include "support/random_programs.hpp"

namespace {

namespace fg = fusegrad;
using fg::Extents;
using fg::test::Block;

// Where the steps and kinks are: sin(u) and cos(u) against 1/pi, 1/e and 1/sqrt(2), which no
// program of these blocks over multiples of 1/8 meets (bridge_random_structured_test.cpp says why).
constexpr double one_over_pi = std::numbers::inv_pi;
constexpr double one_over_e = 1 / std::numbers::e;
constexpr double one_over_sqrt2 = 1 / std::numbers::sqrt2;

using fg::test::reversed_along_axis_0;
using fg::test::reversed_axes;
using fg::test::rotated_along_axis_0;

struct ShapeBlocks {
  static constexpr Block table[] = {
      {"reshape(sin(reshape(u, {-1})), shape(u)) * a", 4, true, true},
      {"u + reshape(squeeze(unsqueeze(flatten(exp(u)), 0)), shape(u))", 6, true, false},
      {"permute(cos(permute(u, reversed)), reversed) * u", 4, true, false},
      {"0.5 * sum(broadcast_to(u, (2, shape(u))), axes<0>)", 3, true, false, 0, 7},
      {"u * index_select(sin(u), 0, reversed)", 3, true, false, 1},
      {"u * broadcast_to(slice(exp(u), 0, 0, 1), shape(u))", 4, true, false, 1},
      {"u + select(unsqueeze(cos(clone(u)), 0), 0, 0)", 5, true, false},
      {"u * gather(sin(u), 0, rotated)", 3, true, false, 1},
      {"where(sin(u) > 1/pi, u * a, exp(u))", 5, false, true},
      {"clamp(sin(u), -1/e, 1/pi) * a", 3, false, true},
      {"u * (cos(u) < 1/e) + sin(u) * (sin(u) >= 1/pi)", 8, false, false},
      {"u * eq(u, u) * (cos(u) <= 1/sqrt2) + ne(sin(u), 2)", 8, false, false},
      {"cat(0, slice(u, 0, 0, k), sin(slice(u, 0, k, n))) * u", 5, true, false, 1},
      {"einsum(\"...,...->...\", cos(u), u) * a", 3, true, true},
  };
  static constexpr std::span<const Block> blocks = table;

  template <class T, class Record>
  static fg::BasicTensor<T> apply(int block, const fg::BasicTensor<T>& u, const fg::BasicTensor<T>& a, Record record) {
    const Extents shape = u.shape();
    switch (block) {
      case 0:
        return record(fg::reshape(fg::sin(fg::reshape(u, {-1})), shape) * a);
      case 1:
        return record(u + fg::reshape(fg::squeeze(fg::unsqueeze(fg::flatten(fg::exp(u)), 0)), shape));
      case 2: {
        const std::vector<std::int64_t> order = reversed_axes(shape);
        return record(fg::permute(fg::cos(fg::permute(u, order)), order) * u);
      }
      case 3:
        return record(0.5 * fg::sum(fg::broadcast_to(u, fg::detail::insert_axis(shape, 0, 2, "test")), fg::axes<0>));
      case 4:
        return record(u * fg::index_select(fg::sin(u), 0, reversed_along_axis_0(shape)));
      case 5:
        return record(u * fg::broadcast_to(fg::slice(fg::exp(u), 0, 0, shape[0] ? 1 : 0), shape));
      case 6:
        return record(u + fg::select(fg::unsqueeze(fg::cos(fg::clone(u)), 0), 0, 0));
      case 7:
        return record(u * fg::gather(fg::sin(u), 0, rotated_along_axis_0(shape)));
      case 12: {
        const auto k = std::int64_t(shape[0] / 2), n = std::int64_t(shape[0]);
        return record(fg::cat(0, fg::slice(u, 0, 0, k), fg::sin(fg::slice(u, 0, k, n))) * u);
      }
      case 13:
        return record(fg::einsum("...,...->...", fg::cos(u), u) * a);
      default:
        break;
    }
    if constexpr (std::is_floating_point_v<T>) {
      switch (block) {
        case 8:
          return record(fg::where(fg::sin(u) > one_over_pi, u * a, fg::exp(u)));
        case 9:
          return record(fg::clamp(fg::sin(u), -one_over_e, one_over_pi) * a);
        case 10:
          return record(u * (fg::cos(u) < one_over_e) + fg::sin(u) * (fg::sin(u) >= one_over_pi));
        case 11:
          return record(u * fg::eq(u, u) * (fg::cos(u) <= one_over_sqrt2) + fg::ne(fg::sin(u), 2.0));
        default:
          break;
      }
    }
    throw std::logic_error("no block " + std::to_string(block) + " for this scalar type");
  }
};
static_assert(std::size(ShapeBlocks::table) == 14, "apply() has one case per block of the table");
[[maybe_unused]] const bool shape_blocks_registered = fg::test::register_block_table<ShapeBlocks>();

RC_GTEST_PROP(BridgeRandom, ShapeProgramsAgree, ()) { fg::test::check_random_program<ShapeBlocks>(); }

}  // namespace
