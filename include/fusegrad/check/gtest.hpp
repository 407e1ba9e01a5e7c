// check/gtest.hpp -- fg::gtest::gradcheck: fg::gradcheck as a GoogleTest assertion, the report its message.
#pragma once

#include <gtest/gtest.h>

#include <fusegrad/check/gradcheck.hpp>

// Not fusegrad::testing: under `using namespace fusegrad;` that would make GoogleTest's `testing` ambiguous.
namespace fusegrad::gtest {

/// `EXPECT_TRUE(fg::gtest::gradcheck(fn, x, y));`: passes when fg::gradcheck does, and
/// prints its report either way (the worst element, the numbers side by side).
template <class F, class... Args>
::testing::AssertionResult gradcheck(F&& fn, const Args&... args) {
  const GradcheckReport report = fusegrad::gradcheck(std::forward<F>(fn), args...);
  return (report ? ::testing::AssertionSuccess() : ::testing::AssertionFailure()) << report;
}

}  // namespace fusegrad::gtest
