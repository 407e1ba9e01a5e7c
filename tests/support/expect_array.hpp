// support/expect_array.hpp -- expect_array_near(actual, {expected...}): a flat result against numbers written out by
// hand, or against an Eigen array.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <initializer_list>
#include <type_traits>

#include <gtest/gtest.h>
#include <Eigen/Core>

namespace fusegrad::test {

/// Checks a flat Eigen array, or a scalar, element by element against `expected`:
///   |actual_i - expected_i| <= tolerance * max(1, |expected_i|).
/// A tolerance of 0 asks for exact equality (right for sums of small integers).
template <class A>
void expect_array_near(const A& actual, std::initializer_list<double> expected, double tolerance = 0) {
  if constexpr (std::is_arithmetic_v<A>) {
    ASSERT_EQ(expected.size(), 1u) << "a scalar result against several expected values";
    EXPECT_NEAR(double(actual), *expected.begin(), tolerance * std::max(1.0, std::abs(*expected.begin())));
  } else {
    ASSERT_EQ(std::size_t(actual.size()), expected.size()) << "wrong number of elements";
    std::size_t i = 0;
    for (double e : expected) {
      EXPECT_NEAR(double(actual[Eigen::Index(i)]), e, tolerance * std::max(1.0, std::abs(e))) << "at index " << i;
      ++i;
    }
  }
}

/// The same against an Eigen array of expected values (a closed form computed with Eigen).
template <class A, class Derived>
void expect_array_near(const A& actual, const Eigen::ArrayBase<Derived>& expected, double tolerance = 0) {
  ASSERT_EQ(Eigen::Index(actual.size()), expected.size()) << "wrong number of elements";
  for (Eigen::Index i = 0; i < expected.size(); ++i) {
    const double e = double(expected.derived().coeff(i));
    EXPECT_NEAR(double(actual.data()[i]), e, tolerance * std::max(1.0, std::abs(e))) << "at index " << i;
  }
}

}  // namespace fusegrad::test
