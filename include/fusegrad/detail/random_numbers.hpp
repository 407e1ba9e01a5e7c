// detail/random_numbers.hpp -- seeded random numbers by a specified generator, the same with every standard library.
#pragma once

#include <cmath>
#include <cstdint>
#include <numbers>

namespace fusegrad::detail {

/// SplitMix64's output function: a bijection of 64-bit words whose outputs for consecutive
/// inputs look independent (Steele, Lea and Flood, "Fast splittable pseudorandom number
/// generators", 2014).
constexpr std::uint64_t mix64(std::uint64_t z) noexcept {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

/// The numbers behind Tensor::rand and Tensor::randn. The standard library's distributions
/// are implementation-defined (libstdc++, libc++ and MSVC give different normals for one
/// seed); these are specified here. Uniforms are exact functions of the seed; normals also
/// depend on how the math library rounds log, sqrt, sin and cos.
class random_numbers {
 public:
  explicit constexpr random_numbers(std::uint64_t seed) noexcept : state_(seed) {}

  /// 64 random bits (SplitMix64).
  constexpr std::uint64_t bits() noexcept { return mix64(state_ += 0x9e3779b97f4a7c15ULL); }

  /// Uniform in [0, 1): the top `precision` bits (53 at most) as a multiple of 2^-precision.
  /// A type of p significand bits needs precision p: rounding more bits could give 1.
  constexpr double uniform(int precision = 53) noexcept {
    return double(bits() >> (64 - precision)) / double(std::uint64_t{1} << precision);
  }

  /// Standard normal, by the Box-Muller transform; each pair of uniforms gives two values.
  double normal() noexcept {
    if (has_spare_) {
      has_spare_ = false;
      return spare_;
    }
    const double u = 1.0 - uniform();  // (0, 1]: log(u) is finite
    const double radius = std::sqrt(-2.0 * std::log(u));
    const double angle = 2.0 * std::numbers::pi * uniform();
    spare_ = radius * std::sin(angle);
    has_spare_ = true;
    return radius * std::cos(angle);
  }

 private:
  std::uint64_t state_;
  double spare_ = 0;
  bool has_spare_ = false;
};

}  // namespace fusegrad::detail
