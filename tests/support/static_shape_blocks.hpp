// support/static_shape_blocks.hpp -- blocks of the static layer's random programs (support/random_static_programs.hpp)
// that reshape, permute, broadcast, slice, index, join, and take extrema: one expression of u and a for static
// expressions and tensors alike. Each gives back u's shape, so they nest. Their run-time parameters (shapes, axis
// orders, indices, split points, tie-breaking offsets) are made from the operand in hand, as a user's code makes them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <type_traits>
#include <vector>

#include <Eigen/Core>

#include <fusegrad/fusegrad.hpp>

#include "support/block_parameters.hpp"
#include "support/block_tables.hpp"

namespace fusegrad::test {

/// Tie-breaking offsets (tie_offsets) for an extremum of flatten(u): a Const of rank 1 in the static layer (whose u
/// may have a rank known only at run time), a tensor on the tape.
template <class U>
auto tie_breaker(const U& u) {
  using T = typename U::value_type;
  const Extents flat{extents_of(u).size()};
  if constexpr (detail::is_tensor_v<U>) {
    return BasicTensor<T>::from(tie_offsets<T>(u.eigen()), flat);
  } else {
    Eigen::ArrayX<T> values(static_cast<Eigen::Index>(flat[0]));
    const auto v = eval(u);  // a number for rank 0, else the flat values
    if constexpr (std::is_arithmetic_v<std::remove_cvref_t<decltype(v)>>)
      values.setConstant(v);
    else
      values = v;
    Const<T, Shape<dyn>, owning> c(flat);
    c.value() = tie_offsets(values);
    return c;
  }
}

struct StaticShapeBlocks : expression_block_table<StaticShapeBlocks> {
  static constexpr Block table[] = {
      {"reshape(sin(reshape(u, {-1})), shape(u)) * a", 4, true, true},
      {"u + reshape(squeeze(unsqueeze(flatten(exp(u)), axes<0>)), shape(u))", 6, true, false},
      {"permute(cos(permute(u, reversed)), reversed) * u", 4, true, false},
      {"0.5 * sum(broadcast_to(u, (2, shape(u))), axes<0>)", 3, true, false},
      {"u * index_select(sin(u), 0, reversed)", 3, true, false, 1},
      {"u * broadcast_to(slice<0, 0, 1>(exp(u)), shape(u))", 4, true, false, 1},
      {"u + select(unsqueeze(cos(clone(u)), axes<0>), 0, 0)", 5, true, false},
      {"u * gather(sin(u), 0, rotated)", 3, true, false, 1},
      {"cat(axes<0>, slice(u, 0, 0, k), sin(slice(u, 0, k, n))) * u", 5, true, false, 1},
      {"u - max(flatten(u) + ties)", 4, false, false},
      {"u * min(flatten(u) + ties)", 4, false, false},
      {"u * argmax(flatten(u) + ties)", 4, false, false},
      {"u - argmin(flatten(u) + ties)", 4, false, false},
  };
  static constexpr std::span<const Block> blocks = table;

  template <std::size_t K, class U, class A>
  static auto expression(const U& u, const A& a) {
    const Extents shape = extents_of(u);
    if constexpr (K == 0) {
      return reshape(sin(reshape(u, {-1})), shape) * a;
    } else if constexpr (K == 1) {
      return u + reshape(squeeze(unsqueeze(flatten(exp(u)), axes<0>)), shape);
    } else if constexpr (K == 2) {
      const std::vector<std::int64_t> order = reversed_axes(shape);
      return permute(cos(permute(u, order)), order) * u;
    } else if constexpr (K == 3) {
      return 0.5 * sum(broadcast_to(u, detail::insert_axis(shape, 0, 2, "test")), axes<0>);
    } else if constexpr (K == 4) {
      return u * index_select(sin(u), 0, reversed_along_axis_0(shape));
    } else if constexpr (K == 5) {
      return u * broadcast_to(slice<0, 0, 1>(exp(u)), shape);
    } else if constexpr (K == 6) {
      return u + select(unsqueeze(cos(clone(u)), axes<0>), 0, 0);
    } else if constexpr (K == 7) {
      return u * gather(sin(u), 0, rotated_along_axis_0(shape));
    } else if constexpr (K == 8) {
      const auto k = std::int64_t(shape[0] / 2), n = std::int64_t(shape[0]);
      return cat(axes<0>, slice(u, 0, 0, k), sin(slice(u, 0, k, n))) * u;
    } else if constexpr (K == 9) {
      return u - max(flatten(u) + tie_breaker(u));
    } else if constexpr (K == 10) {
      return u * min(flatten(u) + tie_breaker(u));
    } else if constexpr (K == 11) {
      return u * argmax(flatten(u) + tie_breaker(u));
    } else {
      return u - argmin(flatten(u) + tie_breaker(u));
    }
  }
};
static_assert(std::size(StaticShapeBlocks::table) == 13,
              "StaticShapeBlocks::expression<K>() has one case per block of the table");

}  // namespace fusegrad::test
