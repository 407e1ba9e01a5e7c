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

  // The members a gradient (an Eigen array) or a tensor is most often asked for, also with a length given as a
  // template argument (head<2>()). Others still add an error of their own: no type can have every member.
#define FUSEGRAD_AFTER_ERROR_MEMBER(name)               \
  after_error name(const auto&...) const { return {}; } \
  template <int Length>                                 \
  after_error name(const auto&...) const {              \
    return {};                                          \
  }
  FUSEGRAD_AFTER_ERROR_MEMBER(sum)
  FUSEGRAD_AFTER_ERROR_MEMBER(prod)
  FUSEGRAD_AFTER_ERROR_MEMBER(mean)
  FUSEGRAD_AFTER_ERROR_MEMBER(maxCoeff)
  FUSEGRAD_AFTER_ERROR_MEMBER(minCoeff)
  FUSEGRAD_AFTER_ERROR_MEMBER(norm)
  FUSEGRAD_AFTER_ERROR_MEMBER(squaredNorm)
  FUSEGRAD_AFTER_ERROR_MEMBER(dot)
  FUSEGRAD_AFTER_ERROR_MEMBER(size)
  FUSEGRAD_AFTER_ERROR_MEMBER(rows)
  FUSEGRAD_AFTER_ERROR_MEMBER(cols)
  FUSEGRAD_AFTER_ERROR_MEMBER(data)
  FUSEGRAD_AFTER_ERROR_MEMBER(array)
  FUSEGRAD_AFTER_ERROR_MEMBER(matrix)
  FUSEGRAD_AFTER_ERROR_MEMBER(eval)
  FUSEGRAD_AFTER_ERROR_MEMBER(transpose)
  FUSEGRAD_AFTER_ERROR_MEMBER(abs)
  FUSEGRAD_AFTER_ERROR_MEMBER(square)
  FUSEGRAD_AFTER_ERROR_MEMBER(isApprox)
  FUSEGRAD_AFTER_ERROR_MEMBER(allFinite)
  FUSEGRAD_AFTER_ERROR_MEMBER(head)
  FUSEGRAD_AFTER_ERROR_MEMBER(tail)
  FUSEGRAD_AFTER_ERROR_MEMBER(segment)
  FUSEGRAD_AFTER_ERROR_MEMBER(item)
  FUSEGRAD_AFTER_ERROR_MEMBER(grad)
  FUSEGRAD_AFTER_ERROR_MEMBER(backward)
  FUSEGRAD_AFTER_ERROR_MEMBER(shape)
  FUSEGRAD_AFTER_ERROR_MEMBER(numel)
  FUSEGRAD_AFTER_ERROR_MEMBER(eigen)
  FUSEGRAD_AFTER_ERROR_MEMBER(detach)
#undef FUSEGRAD_AFTER_ERROR_MEMBER
  template <class To>
  after_error cast() const {
    return {};
  }
  template <class To>
  after_error to() const {
    return {};
  }

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
