// detail/after_error.hpp -- after_error: what a call that has reported a mistake returns, when no result of the right
// type can be made, so that what the caller does with it adds no second error.
#pragma once

#include <cstddef>
#include <exception>

namespace fusegrad::detail {

// Converts to whatever the caller asks for and can be indexed (a list of gradients). The program never compiles, so
// its conversion never runs.
struct after_error {
  template <class T>
  [[noreturn]] operator T() const {  // NOLINT: implicit, to stand in for any result
    std::terminate();
  }
  after_error operator[](std::size_t) const { return {}; }
};

}  // namespace fusegrad::detail
