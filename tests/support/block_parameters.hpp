// support/block_parameters.hpp -- the run-time parameters random-program blocks make from the operand in hand (axis
// orders, indices, tie-breaking offsets), for the tape's blocks (tests/tape/bridge_random_*_test.cpp) and the static
// layer's (support/static_shape_blocks.hpp) alike.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <numbers>
#include <utility>
#include <vector>

#include <Eigen/Core>

#include <fusegrad/fusegrad.hpp>

namespace fusegrad::test {

/// The extents of a tensor or of a static expression.
template <class U>
Extents extents_of(const U& u) {
  if constexpr (detail::is_tensor_v<U>)
    return u.shape();
  else
    return u.extents();
}

/// Axes 0 .. rank - 1 in reverse order.
inline std::vector<std::int64_t> reversed_axes(const Extents& e) {
  std::vector<std::int64_t> order;
  for (std::size_t r = e.rank(); r-- > 0;) order.push_back(std::int64_t(r));
  return order;
}

/// The indices along axis 0, last first.
inline Indices reversed_along_axis_0(const Extents& e) {
  const Extents extents{e[0]};  // before the values are moved into the Indices
  std::vector<std::int64_t> values(e[0]);
  for (std::size_t k = 0; k < values.size(); ++k) values[k] = std::int64_t(values.size() - 1 - k);
  return Indices(std::move(values), extents);
}

/// Shaped like e: each element's index along axis 0, rotated by one.
inline Indices rotated_along_axis_0(const Extents& e) {
  const std::size_t n = e[0], inner = n ? e.size() / n : 0;
  std::vector<std::int64_t> values(e.size());
  for (std::size_t p = 0; p < values.size(); ++p) values[p] = std::int64_t((p / inner + 1) % n);
  return Indices(std::move(values), e);
}

/// Offsets that break ties before an extremum of u's n values: (i + 1) s / (64 pi n) for element i, where s is the
/// power of two at or above pi max(1, max |u|). Equal values are common (equal leaves give equal results) and an
/// extremum has no derivative at a tie; the gaps grow with u's values, so that neither rounding nor the central
/// differences' step crosses them, and s changes only where max |u| crosses a power of two over pi, which no
/// program's value is, so the offsets are constants to the derivative.
template <class T>
Eigen::ArrayX<T> tie_offsets(const Eigen::ArrayX<T>& values) {
  const auto n = values.size();
  const double largest = n ? double(values.abs().maxCoeff()) : 0.0;
  const double s = std::exp2(std::ceil(std::log2(std::numbers::pi * std::max(1.0, largest))));
  return Eigen::ArrayX<T>::LinSpaced(n, T(1), T(n)) * T(s * std::numbers::inv_pi / double(64 * n));
}

}  // namespace fusegrad::test
