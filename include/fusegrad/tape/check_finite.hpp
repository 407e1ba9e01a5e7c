// tape/check_finite.hpp -- what anomaly mode checks of every value and gradient it sees.
#pragma once

#include <cstddef>
#include <string>
#include <type_traits>

#include <Eigen/Core>

#include <fusegrad/error.hpp>

namespace fusegrad::detail {

// Throws value_error naming `what` when anomaly mode finds a NaN or infinity in `values`.
template <class T>
void check_finite(const T* values, std::size_t n, const std::string& what) {
  if constexpr (std::is_floating_point_v<T>) {
    const Eigen::Map<const Eigen::Array<T, Eigen::Dynamic, 1>> v(values, static_cast<Eigen::Index>(n));
    if (!v.allFinite())
      throw value_error("fusegrad anomaly: " + what +
                        " produced NaN or infinity (found by DetectAnomalyGuard); look at that operation's inputs "
                        "(a log or sqrt at 0 or below, a division by 0, an overflowing exp), and at the gradients "
                        "reaching it in a backward");
  }
}

}  // namespace fusegrad::detail
