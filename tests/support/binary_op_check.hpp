// support/binary_op_check.hpp -- the typed fixture that runs one binary op through every operand layout.
#pragma once

#include <cmath>
#include <random>
#include <string>
#include <type_traits>

#include <gtest/gtest.h>

#include <fusegrad/fusegrad.hpp>

#include "support/finite_difference.hpp"
#include "support/gradcheck_layers.hpp"
#include "support/typed_cases.hpp"

namespace fusegrad::test {

/// Where an operand's values are drawn from: uniform in [lo, hi); with `grid`, then rounded to
/// a multiple of 0.5 plus `offset`, so that two operands on offset grids never tie (maximum,
/// minimum are not differentiable where a == b).
struct Domain {
  double lo, hi;
  bool grid = false;
  double offset = 0;
};

/// BinaryOpCheck<Case>::check(op, reference, domain_a, domain_b) runs `op(a, b)` with
///   equal shapes (5,30) and (5,30)          -- streamed operands, several fused blocks
///   (3,1) and (1,4)                          -- both operands broadcast, result (3,4)
///   (2,3,4) and (4)                          -- a leading axis added to b
///   () and (5,30), (5,30) and ()             -- a scalar Var repeated over a vector
///   1.5 op x, x op 1.5                       -- a plain number on either side
/// Each time: every value against `reference` on independently broadcast inputs (computed in
/// double), and the gradient of the sum with fg::gradcheck (the complex step where the op is
/// analytic): in the layers the case covers (typed_cases.hpp) for the first two layouts, in the
/// static layer for the others.
template <class C>
class BinaryOpCheck : public ::testing::Test {
 protected:
  using T = typename C::value_type;
  static constexpr double value_tolerance = std::is_same_v<T, float> ? 1e-5 : 1e-12;
  static constexpr double literal = 1.5;

  std::mt19937 rng{typed_seed};

  template <std::size_t... E>
  auto var_in(const Domain& d) {
    auto v = C::template make_var<E...>(rng, d.lo, d.hi);
    if (d.grid)
      for (Eigen::Index i = 0; i < v.value().size(); ++i)
        v.value()[i] = static_cast<T>(std::round(double(v.value()[i]) * 2) / 2 + d.offset);
    return v;
  }

  template <class Op, class Reference>
  void check(Op op, Reference reference, const Domain& da, const Domain& db) {
    SCOPED_TRACE("typed_seed = " + std::to_string(typed_seed));
    const auto total = [op](const auto&... x) { return sum(op(x...)); };
    {
      SCOPED_TRACE("(5, 30) op (5, 30)");
      auto a = var_in<5, 30>(da);
      auto b = var_in<5, 30>(db);
      check_values(op(a, b), reference, a, b);
      C::expect_gradcheck(op, a, b);
    }
    {
      SCOPED_TRACE("(3, 1) op (1, 4)");
      auto a = var_in<3, 1>(da);
      auto b = var_in<1, 4>(db);
      check_values(op(a, b), reference, a, b);
      C::expect_gradcheck(op, a, b);
    }
    {
      SCOPED_TRACE("(2, 3, 4) op (4)");
      auto a = var_in<2, 3, 4>(da);
      auto b = var_in<4>(db);
      check_values(op(a, b), reference, a, b);
      EXPECT_TRUE(gtest::gradcheck(total, a, b));
    }
    {
      SCOPED_TRACE("() op (5, 30)");
      auto a = var_in<>(da);
      auto b = var_in<5, 30>(db);
      check_values(op(a, b), reference, a, b);
      EXPECT_TRUE(gtest::gradcheck(total, a, b));
    }
    {
      SCOPED_TRACE("(5, 30) op ()");
      auto a = var_in<5, 30>(da);
      auto b = var_in<>(db);
      check_values(op(a, b), reference, a, b);
      EXPECT_TRUE(gtest::gradcheck(total, a, b));
    }
    {
      SCOPED_TRACE("1.5 op (5, 30)");
      auto b = var_in<5, 30>(db);
      Const<T, Shape<>> number(static_cast<T>(literal));
      check_values(op(literal, b), reference, number, b);
      EXPECT_TRUE(gtest::gradcheck([op](const auto& x) { return sum(op(literal, x)); }, b));
    }
    {
      SCOPED_TRACE("(5, 30) op 1.5");
      auto a = var_in<5, 30>(da);
      Const<T, Shape<>> number(static_cast<T>(literal));
      check_values(op(a, literal), reference, a, number);
      EXPECT_TRUE(gtest::gradcheck([op](const auto& x) { return sum(op(x, literal)); }, a));
    }
  }

 private:
  // The expected values: both operands broadcast with fusegrad::broadcast_to (tested on its own
  // in tests/shape) to the result's extents, then `reference` element by element, in double.
  template <class E, class Reference, class A, class B>
  void check_values(const E& expr, Reference reference, const A& a, const B& b) {
    const Extents out = broadcast(a.extents(), b.extents());
    ASSERT_EQ(expr.extents(), out);
    const auto av = broadcast_to(Array<double>(a.value().template cast<double>()), a.extents(), out);
    const auto bv = broadcast_to(Array<double>(b.value().template cast<double>()), b.extents(), out);
    const auto y = as_array(eval(expr));
    ASSERT_EQ(y.size(), Eigen::Index(out.size()));
    for (Eigen::Index i = 0; i < y.size(); ++i) {
      const double expected = reference(av[i], bv[i]);
      EXPECT_NEAR(double(y[i]), expected, value_tolerance * std::max(1.0, std::abs(expected)))
          << "at a = " << av[i] << ", b = " << bv[i];
    }
  }
};

}  // namespace fusegrad::test
