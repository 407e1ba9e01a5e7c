// detail/number_text.hpp -- a number as messages and pictures print it: the shortest text that reads back as the same
// value.
#pragma once

#include <charconv>
#include <complex>
#include <concepts>
#include <string>

namespace fusegrad::detail {

// 0.1 prints as 0.1 and -1e-10 as -1e-10, where std::to_string gives 0.100000 and -0.000000; a float as the float
// it is (0.1f as 0.1, not 0.10000000149011612).
template <std::floating_point T>
std::string number_text(T v) {
  char text[64];
  const auto written = std::to_chars(text, text + sizeof text, v);
  return std::string(text, written.ptr);
}

// A complex number as std::complex's operator<< writes it, "(re,im)", each part as number_text writes it.
template <std::floating_point T>
std::string number_text(const std::complex<T>& v) {
  return "(" + number_text(v.real()) + "," + number_text(v.imag()) + ")";
}

}  // namespace fusegrad::detail
