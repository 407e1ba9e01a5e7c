// expr/storage.hpp -- which Eigen array holds values of a given shape, and the fused block length.
#pragma once

#include <algorithm>
#include <cstddef>
#include <type_traits>

#include <Eigen/Core>

#include <fusegrad/detail/buffer.hpp>
#include <fusegrad/shape/any_shape.hpp>
#include <fusegrad/shape/extents.hpp>

namespace fusegrad {

/// Static shapes up to this many bytes live in fixed-size Eigen arrays (no heap); larger
/// or run-time shapes use dynamic arrays. Eigen refuses stack objects past 128 KiB.
inline constexpr std::size_t max_fixed_bytes = 16 * 1024;

namespace detail {
template <class T, ShapeLike S>
constexpr int eigen_rows() {
  constexpr std::size_t n = static_size_v<S>;
  if constexpr (n == dyn || n * sizeof(T) > max_fixed_bytes || n == 0) {
    return Eigen::Dynamic;
  } else {
    return static_cast<int>(n);
  }
}
}  // namespace detail

// storage_t<T, S>: the flat, row-major Eigen array that holds a value of shape S.
template <class T, ShapeLike S>
using storage_t = Eigen::Array<T, detail::eigen_rows<T, S>(), 1>;

// has_fixed_storage_v<T, S>: whether storage_t<T, S> lives without the heap.
template <class T, ShapeLike S>
inline constexpr bool has_fixed_storage_v = detail::eigen_rows<T, S>() != Eigen::Dynamic;

/// A storage_t of the right size for run-time extents (a no-op resize for fixed storage).
template <class T, ShapeLike S>
storage_t<T, S> make_storage(const Extents& e) {
  storage_t<T, S> out;
  out.resize(static_cast<Eigen::Index>(e.size()));
  return out;
}

namespace detail {

// scratch_t<T, S>: an array a sweep keeps during one call (a materialised value, its
// gradient, a broadcast copy). Fixed-size Eigen storage when S allows it (no heap), else a
// small_buffer, whose large blocks are recycled: memory fresh from the system costs a page
// fault per 4 KiB on every call, more than the arithmetic of a cheap op over those values.
template <class T, ShapeLike S>
using scratch_t = std::conditional_t<has_fixed_storage_v<T, S>, storage_t<T, S>, small_buffer<T>>;

// A scratch_t holding n values: uninitialised, or all `fill`.
template <class T, ShapeLike S>
scratch_t<T, S> make_scratch(std::size_t n) {
  if constexpr (has_fixed_storage_v<T, S>)
    return storage_t<T, S>();
  else
    return small_buffer<T>(n);
}
template <class T, ShapeLike S>
scratch_t<T, S> make_scratch(std::size_t n, T fill) {
  if constexpr (has_fixed_storage_v<T, S>)
    return storage_t<T, S>::Constant(static_cast<Eigen::Index>(n), fill);
  else
    return small_buffer<T>(n, fill);
}

/// Element-wise chains run strip-mined: every node of a segment is evaluated on blocks of
/// this many elements (fixed-size Eigen arrays, so they vectorise), then the reverse sweep
/// runs on the same block before moving on. A block is two packets (for doubles 4 with SSE2
/// or any 128-bit vectors, 8 with AVX, 16 with AVX-512; 4 without vectorisation): two
/// independent packets keep the additions' latency hidden, and a block's values and the
/// scalars' gradient lanes still fit the 16 vector registers of SSE2 and AVX. Longer blocks
/// spill them to the stack once per block (benchmarks/results/b1-b5.md, "Block length",
/// measures the choice on x86-64). It differs with the vector width, one reason why a program's
/// translation units must all be built for the same SIMD registers (README, Limitations).
inline constexpr Eigen::Index block_length =
    std::clamp<Eigen::Index>(2 * Eigen::internal::packet_traits<double>::size, 4, 16);

// zero_block<A>(): a fixed-size array of zeros, written by Eigen's packet stores. `A::Zero()` assigned to an array
// goes through std::fill_n, which g++ turns into `rep stos` here (slow to start for a few hundred bytes) and, on
// AVX-512 machines, into 256-bit stores that the 512-bit loads reading the array back cannot forward from.
template <class A>
[[gnu::always_inline]] inline A zero_block() {
  A zeros;
  Eigen::Map<A>(zeros.data()) = A::Zero();
  return zeros;
}

// block_t<T, N>: the array type of one node's value on one block of N elements. Every block's
// length is known at compile time (run_segment), so a block never touches the heap.
template <class T, int N>
  requires(N > 0)
using block_t = Eigen::Array<T, N, 1>;

}  // namespace detail

}  // namespace fusegrad
