// shape/reduce_broadcast_test.cpp -- reduce_broadcast and broadcast_to: MyGrad's contract, by example and by property.
#include <algorithm>
#include <cmath>
#include <vector>

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>
#include <Eigen/Core>

#include <fusegrad/error.hpp>
#include <fusegrad/shape/extents.hpp>
#include <fusegrad/shape/reduce_broadcast.hpp>

#include "support/expect_error.hpp"
#include "support/random_shapes.hpp"

namespace {

using fusegrad::broadcast_to;
using fusegrad::Extents;
using fusegrad::reduce_broadcast;
using fusegrad::shape_error;
using fusegrad::test::expect_error;

// 0, 1, ..., n-1: row-major position = value, so expected sums can be worked out by hand.
Eigen::ArrayXd iota(Eigen::Index n) { return Eigen::ArrayXd::LinSpaced(n, 0, static_cast<double>(n - 1)); }

Eigen::ArrayXd values(std::vector<double> v) { return Eigen::Map<Eigen::ArrayXd>(v.data(), Eigen::Index(v.size())); }

// Exact comparison: every expected value below is an integer sum, exact in double.
void expect_array_eq(const Eigen::ArrayXd& actual, const std::vector<double>& expected) {
  ASSERT_EQ(actual.size(), Eigen::Index(expected.size()));
  for (Eigen::Index i = 0; i < actual.size(); ++i) EXPECT_EQ(actual[i], expected[std::size_t(i)]) << "at index " << i;
}

// --- reduce_broadcast: explicit numbers ------------------------------------------------------------

// g[k,i,j] = 6k + 3i + j; summing over k: 6(0+1+2+3+4) + 5(3i + j) = 60 + 15i + 5j.
TEST(ReduceBroadcast, ANewLeadingAxisIsSummedOver) {
  expect_array_eq(reduce_broadcast(iota(30), {5, 2, 3}, {2, 3}), {60, 65, 70, 75, 80, 85});
}

// g[i,j,l] = 20i + 4j + l; summing over j (kept as extent 1): 100i + 40 + 5l.
TEST(ReduceBroadcast, AnExpandedOneAxisIsSummedAndKept) {
  expect_array_eq(reduce_broadcast(iota(40), {2, 5, 4}, {2, 1, 4}), {40, 45, 50, 55, 140, 145, 150, 155});
}

// g[a,b,c,d] = 24a + 8b + 2c + d over (5,3,4,2); target (3,1,2) sums over a (new axis) and c (expanded 1):
// 24*10*4 + 20*8b + 5*2*6 + 20d = 1020 + 160b + 20d.
TEST(ReduceBroadcast, NewAndExpandedAxesTogether) {
  expect_array_eq(reduce_broadcast(iota(120), {5, 3, 4, 2}, {3, 1, 2}), {1020, 1040, 1180, 1200, 1340, 1360});
}

TEST(ReduceBroadcast, AScalarTargetGetsTheFullSum) {
  expect_array_eq(reduce_broadcast(values({1, 2, 3, 4, 5, 6}), {2, 3}, {}), {21});
  expect_array_eq(reduce_broadcast(values({2.5}), {}, {}), {2.5});
}

TEST(ReduceBroadcast, ATargetOfOnesGetsTheFullSumInItsOwnShape) {
  expect_array_eq(reduce_broadcast(values({1, 2, 3, 4, 5, 6}), {2, 3}, {1, 1}), {21});
  expect_array_eq(reduce_broadcast(values({1, 2, 3, 4, 5, 6}), {2, 3}, {1}), {21});
}

TEST(ReduceBroadcast, TheSameShapeIsTheIdentity) {
  expect_array_eq(reduce_broadcast(values({1, -2, 3, 4, 5, 6}), {2, 3}, {2, 3}), {1, -2, 3, 4, 5, 6});
  expect_array_eq(reduce_broadcast(values({1, -2, 3}), {1, 3}, {1, 3}), {1, -2, 3});
}

TEST(ReduceBroadcast, AGradientOfLowerRankThanTheTargetThrows) {
  // MyGrad: a (3) gradient cannot belong to a (1,3) operand, even though the sizes agree.
  expect_error<shape_error>(
      [] {
        (void)reduce_broadcast(values({1, 2, 3}), {3}, {1, 3});
      },
      {"fusegrad::reduce_broadcast", "(3)", "(1, 3)", "lower rank"});
}

TEST(ReduceBroadcast, ShapesThatDoNotBroadcastThrow) {
  expect_error<shape_error>(
      [] {
        (void)reduce_broadcast(iota(8), {2, 4}, {3});
      },
      {"fusegrad::reduce_broadcast", "(3)", "(2, 4)", "axis 1"});
  expect_error<shape_error>([] { (void)reduce_broadcast(iota(6), {2, 3}, {2, 1, 3}); }, {"lower rank"});
}

TEST(ReduceBroadcast, AGradientWhoseSizeContradictsItsExtentsThrows) {
  expect_error<shape_error>([] { (void)reduce_broadcast(iota(5), {2, 3}, {3}); }, {"5 elements", "(2, 3)", "6"});
}

// --- broadcast_to: explicit numbers -----------------------------------------------------------------

TEST(BroadcastTo, RepeatsAlongANewLeadingAxis) {
  expect_array_eq(broadcast_to(values({1, 2, 3}), {3}, {2, 3}), {1, 2, 3, 1, 2, 3});
}

TEST(BroadcastTo, RepeatsAlongAnExpandedOneAxis) {
  expect_array_eq(broadcast_to(values({1, 2, 3}), {3, 1}, {3, 2}), {1, 1, 2, 2, 3, 3});
  expect_array_eq(broadcast_to(values({1, 2, 3, 4}), {2, 1, 2}, {2, 3, 2}), {1, 2, 1, 2, 1, 2, 3, 4, 3, 4, 3, 4});
}

TEST(BroadcastTo, AScalarFillsTheShape) { expect_array_eq(broadcast_to(values({7}), {}, {2, 2}), {7, 7, 7, 7}); }

TEST(BroadcastTo, TheSameShapeIsACopy) {
  expect_array_eq(broadcast_to(values({1, 2, 3, 4}), {2, 2}, {2, 2}), {1, 2, 3, 4});
}

TEST(BroadcastTo, ShapesThatDoNotBroadcastThrow) {
  expect_error<shape_error>(
      [] {
        (void)broadcast_to(values({1, 2, 3}), {3}, {4});
      },
      {"fusegrad::broadcast_to", "(3)", "(4)"});
  expect_error<shape_error>([] { (void)broadcast_to(iota(6), {2, 3}, {3}); }, {"fusegrad::broadcast_to", "lower rank"});
}

TEST(BroadcastTo, ValuesWhoseSizeContradictTheirExtentsThrow) {
  expect_error<shape_error>(
      [] {
        (void)broadcast_to(values({1, 2}), {3}, {2, 3});
      },
      {"fusegrad::broadcast_to", "2 elements", "(3)"});
}

// --- the allocation-free forms used by the fused sweep -------------------------------------------

TEST(ReduceBroadcastInto, AddsToWhatTheTargetGradientHolds) {
  std::vector<double> target_grad{100, 200, 300};  // an earlier contribution, kept
  const Eigen::ArrayXd g = values({1, 2, 3, 10, 20, 30});
  fusegrad::reduce_broadcast_into(target_grad.data(), g.data(), {2, 3}, {3});
  EXPECT_EQ(target_grad, (std::vector<double>{111, 222, 333}));
}

TEST(ReduceBroadcastInto, SumsExpandedAxesLikeReduceBroadcast) {
  std::vector<double> target_grad(6, 0.0);
  const Eigen::ArrayXd g = iota(120);
  fusegrad::reduce_broadcast_into(target_grad.data(), g.data(), {5, 3, 4, 2}, {3, 1, 2});
  EXPECT_EQ(target_grad, (std::vector<double>{1020, 1040, 1180, 1200, 1340, 1360}));
}

TEST(BroadcastInto, OverwritesTheOutput) {
  std::vector<double> out(6, -1.0);
  const Eigen::ArrayXd v = values({1, 2, 3});
  fusegrad::broadcast_into(out.data(), v.data(), {3, 1}, {3, 2});
  EXPECT_EQ(out, (std::vector<double>{1, 1, 2, 2, 3, 3}));
}

TEST(ReduceBroadcastInto, ThrowsLikeReduceBroadcast) {
  std::vector<double> target_grad(3, 0.0);
  const Eigen::ArrayXd g = iota(8);
  expect_error<shape_error>(
      [&] {
        fusegrad::reduce_broadcast_into(target_grad.data(), g.data(), {2, 4}, {3});
      },
      {"(3)", "(2, 4)"});
}

// --- properties over random shapes (RapidCheck: 100 cases each; a failure prints the seed,
// --- replay it with RC_PARAMS="seed=<n>") --------------------------------------------------------

using fusegrad::test::gen_broadcast_case;
using fusegrad::test::gen_extents;
using fusegrad::test::gen_values;

RC_GTEST_PROP(ReduceBroadcastProperty, TheResultHasTheTargetSize, ()) {
  const auto c = *gen_broadcast_case();
  const Eigen::ArrayXd g = *gen_values(c.big.size());
  RC_ASSERT(std::size_t(reduce_broadcast(g, c.big, c.target).size()) == c.target.size());
}

RC_GTEST_PROP(ReduceBroadcastProperty, TheTotalIsPreserved, ()) {
  const auto c = *gen_broadcast_case();
  const Eigen::ArrayXd g = *gen_values(c.big.size());
  const double expected = g.sum(), actual = reduce_broadcast(g, c.big, c.target).sum();
  RC_ASSERT(std::abs(actual - expected) <= 1e-9 * std::max(1.0, std::abs(expected)));
}

// Each element of v appears big.size() / target.size() times in the broadcast, so it comes back scaled by that.
RC_GTEST_PROP(ReduceBroadcastProperty, UndoesBroadcastToUpToTheRepeatCount, ()) {
  const auto c = *gen_broadcast_case();
  const Eigen::ArrayXd v = *gen_values(c.target.size());
  const double repeats = double(c.big.size()) / double(c.target.size());
  const Eigen::ArrayXd back = reduce_broadcast(broadcast_to(v, c.target, c.big), c.big, c.target);
  RC_ASSERT(back.size() == v.size());
  RC_ASSERT(((back - v * repeats).abs() <= 1e-9 * (1.0 + v.abs() * repeats)).all());
}

RC_GTEST_PROP(ReduceBroadcastProperty, TheSameShapeIsTheIdentity, ()) {
  const Extents e = *gen_extents(0, 4);
  const Eigen::ArrayXd g = *gen_values(e.size());
  RC_ASSERT((reduce_broadcast(g, e, e) == g).all());
}

// The definition: every gradient element lands on the operand element it was broadcast from.
RC_GTEST_PROP(ReduceBroadcastProperty, MatchesTheElementByElementDefinition, ()) {
  const auto c = *gen_broadcast_case();
  const Eigen::ArrayXd g = *gen_values(c.big.size());
  const Eigen::ArrayXd expected = fusegrad::test::naive_reduce_broadcast(g, c.big, c.target);
  RC_ASSERT(((reduce_broadcast(g, c.big, c.target) - expected).abs() <= 1e-9 * (1.0 + expected.abs())).all());
}

// reduce_broadcast is the adjoint of broadcast_to (that is why it is broadcasting's VJP):
// <broadcast_to(v), g> == <v, reduce_broadcast(g)>.
RC_GTEST_PROP(ReduceBroadcastProperty, IsTheAdjointOfBroadcastTo, ()) {
  const auto c = *gen_broadcast_case();
  const Eigen::ArrayXd v = *gen_values(c.target.size());
  const Eigen::ArrayXd g = *gen_values(c.big.size());
  const double lhs = (broadcast_to(v, c.target, c.big) * g).sum();
  const double rhs = (v * reduce_broadcast(g, c.big, c.target)).sum();
  RC_ASSERT(std::abs(lhs - rhs) <= 1e-9 * std::max(1.0, std::abs(lhs)));
}

// The allocation-free forms agree with the allocating ones; reduce_broadcast_into accumulates.
RC_GTEST_PROP(ReduceBroadcastProperty, IntoFormsAgreeAndAccumulate, ()) {
  const auto c = *gen_broadcast_case();
  const Eigen::ArrayXd v = *gen_values(c.target.size());
  const Eigen::ArrayXd g = *gen_values(c.big.size());
  Eigen::ArrayXd accumulated = v;
  fusegrad::reduce_broadcast_into(accumulated.data(), g.data(), c.big, c.target);
  RC_ASSERT(
      ((accumulated - (v + reduce_broadcast(g, c.big, c.target))).abs() <= 1e-9 * (1.0 + accumulated.abs())).all());
  Eigen::ArrayXd spread(static_cast<Eigen::Index>(c.big.size()));
  fusegrad::broadcast_into(spread.data(), v.data(), c.target, c.big);
  RC_ASSERT((spread == broadcast_to(v, c.target, c.big)).all());
}

}  // namespace
