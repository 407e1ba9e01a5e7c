// check/gtest.hpp -- fg::testing::gradcheck: fg::gradcheck as a GoogleTest assertion, the report its message.
#pragma once

#include <gtest/gtest.h>

#include <fusegrad/check/gradcheck.hpp>

namespace fusegrad::testing {

/// `EXPECT_TRUE(fg::testing::gradcheck(fn, x, y));`: passes when fg::gradcheck does, and
/// prints its report either way (the worst element, the numbers side by side).
template <class F, class... Args>
::testing::AssertionResult gradcheck(F&& fn, const Args&... args) {
  const GradcheckReport report = fusegrad::gradcheck(std::forward<F>(fn), args...);
  return (report ? ::testing::AssertionSuccess() : ::testing::AssertionFailure()) << report;
}

}  // namespace fusegrad::testing
