// detail/after_error.hpp -- after_error: what a call that has reported a mistake returns, when no result of the right
// type can be made, so that what the caller does with it adds no second error.
#pragma once

#include <compare>
#include <cstddef>
#include <exception>

namespace fusegrad::detail {

// Converts to whatever the caller asks for, and can be indexed, called, printed, compared and computed with, as a
// gradient or a value would be. The program never compiles, so none of it ever runs.
struct after_error {
  template <class T>
  [[noreturn]] operator T() const {  // NOLINT: implicit, to stand in for any result
    std::terminate();
  }
  after_error operator[](std::size_t) const { return {}; }
  after_error operator()(const auto&...) const { return {}; }

  // Arithmetic with anything on either side, and in place into anything.
#define FUSEGRAD_AFTER_ERROR_OPERATOR(op)                                               \
  friend after_error operator op(const after_error&, const after_error&) { return {}; } \
  friend after_error operator op(const after_error&, const auto&) { return {}; }        \
  friend after_error operator op(const auto&, const after_error&) { return {}; }        \
  template <class Target>                                                               \
  friend Target& operator op##=(Target& target, const after_error&) {                   \
    return target;                                                                      \
  }
  FUSEGRAD_AFTER_ERROR_OPERATOR(+)
  FUSEGRAD_AFTER_ERROR_OPERATOR(-)
  FUSEGRAD_AFTER_ERROR_OPERATOR(*)
  FUSEGRAD_AFTER_ERROR_OPERATOR(/)
#undef FUSEGRAD_AFTER_ERROR_OPERATOR

  // Compared with anything, from either side.
  friend bool operator==(const after_error&, const auto&) { return false; }
  friend std::partial_ordering operator<=>(const after_error&, const auto&) { return std::partial_ordering::unordered; }

  template <class Stream>
  friend Stream& operator<<(Stream& out, const after_error&) {  // printed
    return out;
  }
};

}  // namespace fusegrad::detail
