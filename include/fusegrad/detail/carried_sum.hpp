// detail/carried_sum.hpp -- sums of float that keep their digits: a float accumulator lane passes what it holds on to
// a double every so many blocks.
#pragma once

#include <complex>
#include <type_traits>

namespace fusegrad::detail {

// The type in which a long sum of T is carried: double for float, whose lanes would otherwise each add up millions of
// values and lose their last digits (ten million times 0.1f came to 975599); T itself for double.
template <class T>
struct carried_sum {
  using type = T;
};
template <>
struct carried_sum<float> {
  using type = double;
};
template <>
struct carried_sum<std::complex<float>> {
  using type = std::complex<double>;
};
template <class T>
using carried_sum_t = typename carried_sum<T>::type;
template <class T>
inline constexpr bool carries_sums_v = !std::is_same_v<carried_sum_t<T>, T>;

// What a float sum's lanes have passed on, and how many full blocks they have added since.
template <class T>
struct carried_lanes {
  static constexpr int blocks_per_carry = 16;  // a lane adds up at most 16 values in float
  carried_sum_t<T> sum{};
  int blocks = 0;

  // After a full block was added to `lanes` (an Eigen array): every blocks_per_carry blocks, their sum moves on.
  template <class Lanes>
  void count(Lanes& lanes) {
    if (++blocks == blocks_per_carry) {
      sum += carried_sum_t<T>(lanes.sum());
      lanes.setZero();
      blocks = 0;
    }
  }
  // The whole sum: what was carried and what the lanes hold now.
  template <class Lanes>
  [[nodiscard]] T total(const Lanes& lanes) const {
    return T(sum + carried_sum_t<T>(lanes.sum()));
  }
};

// Nothing to carry (double, complex<double>).
struct no_carry {
  template <class Lanes>
  void count(Lanes&) {}
  template <class Lanes>
  [[nodiscard]] auto total(const Lanes& lanes) const {
    return lanes.sum();
  }
};

template <class T>
using carry_for_t = std::conditional_t<carries_sums_v<T>, carried_lanes<T>, no_carry>;

}  // namespace fusegrad::detail
