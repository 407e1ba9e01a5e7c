// ops/indices.hpp -- fg::Indices: integer indices with extents, what index_select and gather read.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <fusegrad/detail/number_text.hpp>
#include <fusegrad/error.hpp>
#include <fusegrad/shape/extents.hpp>

namespace fusegrad {

/// Integer indices with extents (PyTorch's index tensor of dtype long), for index_select and
/// gather. Negative indices count from the end of the axis they index. Copies share the
/// values: a recorded node keeps them at no cost.
class Indices {
 public:
  /// A vector of indices: `fg::Indices{2, 0, 2}`.
  Indices(std::initializer_list<std::int64_t> values)
      : values_(std::make_shared<const std::vector<std::int64_t>>(values)), extents_{values.size()} {}
  /// Indices with extents, row-major; throws shape_error when the count differs.
  Indices(std::vector<std::int64_t> values, const Extents& extents)
      : values_(std::make_shared<const std::vector<std::int64_t>>(std::move(values))), extents_(extents) {
    if (values_->size() != extents_.size())
      throw shape_error("fusegrad::Indices: " + std::to_string(values_->size()) + " indices for extents " +
                        extents_.to_string() + " (" + std::to_string(extents_.size()) + " elements)");
  }
  /// Indices held as floating-point values, such as argmax's: each must be a whole number within +-9e15.
  template <class T>
  static Indices from_values(std::span<const T> values, const Extents& extents) {
    std::vector<std::int64_t> out(values.size());
    const auto refuse = [&](std::size_t i, const char* why) {
      throw value_error("fusegrad::Indices: value " + detail::number_text(double(values[i])) + " at position " +
                        std::to_string(i) + why);
    };
    for (std::size_t i = 0; i < values.size(); ++i) {
      if (!(std::trunc(values[i]) == values[i])) refuse(i, " is not an index (a whole number)");
      // Past 2^53 (about 9.007e15) a double no longer holds every whole number: the index may not be the one meant.
      if (std::abs(values[i]) > T(9.0e15))
        refuse(i,
               " is outside -9e15 to 9e15, the indices read from floating-point values (beyond about 2^53 a "
               "double does not hold every whole number)");
      out[i] = static_cast<std::int64_t>(values[i]);
    }
    return Indices(std::move(out), extents);
  }

  [[nodiscard]] std::span<const std::int64_t> values() const noexcept { return *values_; }
  [[nodiscard]] const Extents& extents() const noexcept { return extents_; }
  [[nodiscard]] std::size_t size() const noexcept { return values_->size(); }
  [[nodiscard]] std::int64_t operator[](std::size_t i) const noexcept { return (*values_)[i]; }

 private:
  std::shared_ptr<const std::vector<std::int64_t>> values_;
  Extents extents_;
};

}  // namespace fusegrad
