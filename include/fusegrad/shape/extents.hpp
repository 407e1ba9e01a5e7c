// shape/extents.hpp -- Extents: a shape known at run time; whether it fits a static shape; what a reduction leaves.
#pragma once

#include <array>
#include <cstddef>
#include <initializer_list>
#include <limits>
#include <span>
#include <string>

#include <fusegrad/error.hpp>
#include <fusegrad/shape/reduce.hpp>
#include <fusegrad/shape/shape.hpp>

namespace fusegrad {

/// The extents of a tensor at run time: up to `max_rank` axes, row-major.
/// Fixed capacity, so building and copying one never allocates.
class Extents {
 public:
  static constexpr std::size_t max_rank = 8;

  constexpr Extents() = default;  // a scalar, rank 0

  constexpr Extents(std::initializer_list<std::size_t> extents) : Extents(std::span(extents.begin(), extents.size())) {}

  constexpr explicit Extents(std::span<const std::size_t> extents) : rank_(extents.size()) {
    if (extents.size() > max_rank) [[unlikely]]
      throw_rank_too_large(extents.size());
    // A loop of fixed length copies the axes, with no call to memmove for a few of them: the constructor stays small
    // enough to inline where a sweep builds extents.
    for (std::size_t axis = 0; axis < max_rank; ++axis)
      if (axis < rank_) data_[axis] = extents[axis];
    size_ = element_count(extents);
    if (size_ > max_size) [[unlikely]]
      throw_too_large();
  }

  /// The most elements a shape may hold: more would overflow a byte count (of complex<double>) or Eigen::Index.
  static constexpr int max_size_bits = 59;
  static constexpr std::size_t max_size = std::size_t(1) << max_size_bits;
  /// max_size as the messages print it.
  static std::string max_size_text() { return "2^" + std::to_string(max_size_bits); }

  /// The extents of a static shape.
  template <ShapeType S>
  static constexpr Extents of() {
    static_assert(is_static_v<S>, "fusegrad::Extents::of<S>(): S has a dyn extent; pass the run-time extents");
    static_assert(S::rank <= max_rank, "fusegrad::Extents::of<S>(): rank exceeds Extents::max_rank");
    constexpr bool fits = is_static_v<S> && S::rank <= max_rank;
    static_assert(!fits || element_count(S::extents) <= max_size,
                  "fusegrad::Extents::of<S>(): S holds more than 2^59 elements (max_size)");
    if constexpr (fits && element_count(S::extents) <= max_size) {  // otherwise one error above, not a second one here
      constexpr Extents extents{std::span<const std::size_t>(S::extents)};  // built by the compiler, not at each call
      return extents;
    } else {
      return Extents{};
    }
  }

  [[nodiscard]] constexpr std::size_t rank() const noexcept { return rank_; }
  [[nodiscard]] constexpr std::size_t operator[](std::size_t axis) const noexcept { return data_[axis]; }
  /// The extent of each axis, in order.
  [[nodiscard]] constexpr std::span<const std::size_t> axes() const noexcept { return {data_.data(), rank_}; }
  [[nodiscard]] constexpr const std::size_t* begin() const noexcept { return data_.data(); }
  [[nodiscard]] constexpr const std::size_t* end() const noexcept { return data_.data() + rank_; }

  /// The number of elements (1 for a scalar); kept, since the fused sweep asks often.
  [[nodiscard]] constexpr std::size_t size() const noexcept { return size_; }

  // A loop over the axes, not std::equal: the compiler makes that a call to memcmp, which costs more than the few
  // axes it compares (every fused sweep compares its leaves' extents).
  friend constexpr bool operator==(const Extents& a, const Extents& b) noexcept {
    if (a.rank_ != b.rank_ || a.size_ != b.size_) return false;
    for (std::size_t axis = 0; axis < a.rank_; ++axis)
      if (a.data_[axis] != b.data_[axis]) return false;
    return true;
  }

  /// "(3, 2)"; "()" for a scalar: the one printed form of a shape (shape.hpp).
  [[nodiscard]] std::string to_string() const {
    std::string out;
    detail::render_extents(axes(), [&](char c) { out += c; });
    return out;
  }

 private:
  // The number of elements of a shape of these extents: 0 where an axis is empty, whatever the others are; more than
  // max_size (not the product, which may have wrapped) where they hold more than that, or where an extent is a
  // negative number made unsigned (past 2^63), empty axis or not.
  static constexpr std::size_t element_count(std::span<const std::size_t> extents) noexcept {
    bool empty = false, too_large = false, negative = false;
    std::size_t size = 1;
    for (std::size_t e : extents) {
      empty |= e == 0;
      negative |= static_cast<std::ptrdiff_t>(e) < 0;
      // Both below 2^(half the bits), the product cannot wrap, and a division (tens of cycles, in every Extents) is
      // spared.
      constexpr int half = std::numeric_limits<std::size_t>::digits / 2;
      if ((size | e) >> half != 0 && size != 0 && e > max_size / size) [[unlikely]]
        too_large = true;
      size *= e;
      too_large |= size > max_size;
    }
    return negative ? max_size + 1 : empty ? 0 : too_large ? max_size + 1 : size;
  }
  [[noreturn, gnu::cold, gnu::noinline]] static void throw_rank_too_large(std::size_t rank) {
    throw shape_error("fusegrad::Extents: rank " + std::to_string(rank) + " exceeds the maximum of " +
                      std::to_string(max_rank));
  }
  [[noreturn, gnu::cold, gnu::noinline]] void throw_too_large() const {
    // An extent past 2^63 is a negative number made unsigned on its way here (a shape given as {n} with an int n).
    for (std::size_t axis = 0; axis < rank_; ++axis)
      if (const auto as_signed = static_cast<std::ptrdiff_t>(data_[axis]); as_signed < 0)
        throw shape_error("fusegrad::Extents: axis " + std::to_string(axis) + "'s extent is " +
                          std::to_string(data_[axis]) + ", " + std::to_string(as_signed) +
                          " as a signed number; an extent is a count of elements, 0 or more (-1 to infer an extent "
                          "is fg::reshape's, not a shape's)");
    throw shape_error("fusegrad::Extents: the shape " + to_string() + " holds more than " + max_size_text() +
                      " elements; no memory holds that many");
  }

  std::array<std::size_t, max_rank> data_{};
  std::size_t rank_ = 0;
  std::size_t size_ = 1;
};

/// Whether run-time extents fit a compile-time shape (same rank, equal where S is static).
template <ShapeType S>
constexpr bool fits(const Extents& e) noexcept {
  if (e.rank() != S::rank) return false;
  for (std::size_t i = 0; i < S::rank; ++i)
    if (S::extents[i] != dyn && S::extents[i] != e[i]) return false;
  return true;
}

/// Checks that run-time extents fit S; `what` names the call for the message.
template <ShapeType S>
void require_fits(const Extents& e, const char* what) {
  if (!fits<S>(e))
    throw shape_error(std::string(what) + ": extents " + e.to_string() + " do not fit the declared shape " +
                      to_string<S>());
}

/// The extents left after reducing over the axes marked in `mask` (detail::reduce_into).
constexpr Extents reduce_extents(const Extents& e, std::span<const bool> mask, keep_dims keep) {
  std::array<std::size_t, Extents::max_rank> out{};
  const std::size_t rank = detail::reduce_into(e.axes(), mask, keep, out);
  return Extents(std::span<const std::size_t>(out.data(), rank));
}

}  // namespace fusegrad
