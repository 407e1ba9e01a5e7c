// support/expect_error.hpp -- expect_error<E>(f, {"part", ...}): f throws E and what() names every part.
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>

#include <gtest/gtest.h>

namespace fusegrad::test {

/// Checks that `f()` throws exactly an `E` (or a subclass) whose message contains each of `parts`.
/// Returns the message so a test can check more.
template <class E, class F>
std::string expect_error(F&& f, std::initializer_list<std::string_view> parts) {
  try {
    f();
  } catch (const E& e) {
    const std::string what = e.what();
    for (std::string_view part : parts)
      EXPECT_NE(what.find(part), std::string::npos) << "the message lacks \"" << part << "\": " << what;
    return what;
  } catch (const std::exception& e) {
    ADD_FAILURE() << "threw a different exception: " << e.what();
    return {};
  }
  ADD_FAILURE() << "did not throw";
  return {};
}

}  // namespace fusegrad::test
