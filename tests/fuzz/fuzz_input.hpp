// fuzz/fuzz_input.hpp -- fuzz_input: a fuzzer's bytes read as small numbers, and the rule every target checks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <span>
#include <vector>

#include <fusegrad/error.hpp>
#include <fusegrad/shape/extents.hpp>

namespace fusegrad::fuzz {

/// Reads the input front to back; past its end every read gives 0, so any input is a program.
class fuzz_input {
 public:
  fuzz_input(const std::uint8_t* data, std::size_t size) : bytes_(data, size) {}

  [[nodiscard]] bool done() const { return next_ >= bytes_.size(); }
  std::uint8_t byte() { return done() ? 0 : bytes_[next_++]; }
  /// A number in [0, n).
  std::size_t below(std::size_t n) { return n ? byte() % n : 0; }
  bool flag() { return byte() & 1; }

  /// Extents of rank 0..max_rank, each extent 0..max_extent: empty tensors and extents that do
  /// not broadcast are as welcome as good ones.
  Extents extents(std::size_t max_rank = 4, std::size_t max_extent = 4) {
    std::vector<std::size_t> e(below(max_rank + 1));
    for (auto& x : e) x = below(max_extent + 1);
    return Extents(std::span<const std::size_t>(e));
  }

  /// A value from a table that holds the awkward ones: zeros of both signs, infinities, a NaN,
  /// numbers at the edge of exp's range.
  double value() {
    static constexpr double table[] = {0.0,    -0.0, 1.0,  -1.0,  0.5,   -2.5,  3.0,    1e-300,
                                       -1e300, 710., 800., -800., 1e308, 0.125, -0.125, 2.0};
    const std::uint8_t b = byte();
    if (b == 255) return __builtin_inf();
    if (b == 254) return -__builtin_inf();
    if (b == 253) return __builtin_nan("");
    return table[b % std::size(table)];
  }

 private:
  std::span<const std::uint8_t> bytes_;
  std::size_t next_ = 0;
};

/// Runs one input: a fusegrad:: exception is a correct answer to bad input; any other exception
/// is a bug, reported and turned into a crash so that the fuzzer keeps the input.
template <class Program>
int run_guarded(Program&& program) {
  try {
    program();
  } catch (const fusegrad::error&) {
    // bad input, refused with a message: fine
  } catch (const std::exception& e) {
    std::fprintf(stderr, "not a fusegrad:: exception: %s\n", e.what());
    std::abort();
  }
  return 0;
}

}  // namespace fusegrad::fuzz
