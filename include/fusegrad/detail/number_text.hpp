// detail/number_text.hpp -- a number as messages print it: the shortest text that reads back as the same value.
#pragma once

#include <charconv>
#include <string>

namespace fusegrad::detail {

// 0.1 prints as 0.1 and -1e-10 as -1e-10, where std::to_string gives 0.100000 and -0.000000.
inline std::string number_text(double v) {
  char text[32];
  const auto written = std::to_chars(text, text + sizeof text, v);
  return std::string(text, written.ptr);
}

}  // namespace fusegrad::detail
