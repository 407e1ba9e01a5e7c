// detail/strided_walk.hpp -- one loop over a row-major index space, reading and writing through strides of its own.
#pragma once

#include <array>
#include <cassert>
#include <cstddef>
#include <span>

namespace fusegrad::detail {

// The most axes a walk has: an einsum walks its distinct labels (shape/einsum_subscripts.hpp: einsum_labels).
inline constexpr std::size_t max_walk_rank = 64;

// For every index over `extents` (row-major), dst[index . dst_strides] (+)= src[index . src_strides]:
// the one loop behind diagonals, sums, broadcasts, permutations and scatters.
template <bool Add, class T>
void strided_walk(std::span<const std::size_t> extents, std::span<const std::ptrdiff_t> src_strides,
                  std::span<const std::ptrdiff_t> dst_strides, const T* src, T* dst) {
  const std::size_t rank = extents.size();
  assert(rank <= max_walk_rank);
  for (std::size_t e : extents)
    if (e == 0) return;
  if (rank == 0) {
    if constexpr (Add)
      *dst += *src;
    else
      *dst = *src;
    return;
  }
  const std::size_t inner = extents[rank - 1];
  const std::ptrdiff_t s_inner = src_strides[rank - 1], d_inner = dst_strides[rank - 1];
  std::array<std::size_t, max_walk_rank> index{};
  while (true) {
    const T* s = src;
    T* d = dst;
    for (std::size_t i = 0; i < inner; ++i, s += s_inner, d += d_inner) {
      if constexpr (Add)
        *d += *s;
      else
        *d = *s;
    }
    // The odometer over the outer axes.
    std::size_t axis = rank - 1;
    while (true) {
      if (axis == 0) return;
      --axis;
      src += src_strides[axis];
      dst += dst_strides[axis];
      if (++index[axis] < extents[axis]) break;
      src -= src_strides[axis] * std::ptrdiff_t(extents[axis]);
      dst -= dst_strides[axis] * std::ptrdiff_t(extents[axis]);
      index[axis] = 0;
    }
  }
}

}  // namespace fusegrad::detail
