// shape/extents_test.cpp -- Extents: construction, size, printing, comparison, fits, run-time broadcasting.
#include <array>
#include <stdexcept>

#include <gtest/gtest.h>

#include <fusegrad/error.hpp>
#include <fusegrad/shape/broadcast.hpp>
#include <fusegrad/shape/extents.hpp>

#include "support/expect_error.hpp"

namespace {

using fusegrad::dyn;
using fusegrad::Extents;
using fusegrad::Shape;
using fusegrad::shape_error;
using fusegrad::test::expect_error;

TEST(Extents, DefaultIsAScalar) {
  const Extents e;
  EXPECT_EQ(e.rank(), 0u);
  EXPECT_EQ(e.size(), 1u);
  EXPECT_EQ(e.to_string(), "()");
}

TEST(Extents, FromAListOfExtents) {
  const Extents e{3, 2};
  EXPECT_EQ(e.rank(), 2u);
  EXPECT_EQ(e[0], 3u);
  EXPECT_EQ(e[1], 2u);
  EXPECT_EQ(e.size(), 6u);
  EXPECT_EQ(e.to_string(), "(3, 2)");
  EXPECT_EQ((Extents{2, 3, 4}.size()), 24u);
  EXPECT_EQ((Extents{7}.to_string()), "(7)");
}

TEST(Extents, FromASpan) {
  const std::array<std::size_t, 3> values{4, 1, 5};
  const Extents e(values);
  EXPECT_EQ(e.rank(), 3u);
  EXPECT_EQ(e.size(), 20u);
  EXPECT_EQ(e.to_string(), "(4, 1, 5)");
}

TEST(Extents, AnEmptyAxisMeansNoElements) {
  EXPECT_EQ((Extents{4, 0, 2}.size()), 0u);
  EXPECT_EQ((Extents{4, 0, 2}.to_string()), "(4, 0, 2)");
}

// 2^59 elements at most; an empty axis makes the shape empty however large the others are, before or after it.
TEST(Extents, MoreThanTwoToTheFiftyNineElementsThrowUnlessAnAxisIsEmpty) {
  constexpr std::size_t big = std::size_t(1) << 32;  // big * big wraps to 0 in 64 bits
  EXPECT_EQ((Extents{std::size_t(1) << 59}.size()), std::size_t(1) << 59);
  EXPECT_EQ((Extents{std::size_t(1) << 30, std::size_t(1) << 29}.size()), std::size_t(1) << 59);
  expect_error<shape_error>(
      [] {
        return Extents{std::size_t(1) << 30, std::size_t(1) << 30};
      },
      {"(1073741824, 1073741824)", "2^59"});
  expect_error<shape_error>([] { return Extents{big, big}; }, {"2^59"});
  expect_error<shape_error>([] { return Extents{3, big, big, 5}; }, {"2^59"});
  EXPECT_EQ((Extents{big, big, 0}.size()), 0u);
  EXPECT_EQ((Extents{0, big, big}.size()), 0u);
  EXPECT_EQ((Extents{big, 0, big}.to_string()), "(4294967296, 0, 4294967296)");
}

// An extent past 2^63 is a negative number made unsigned (a shape given as {n} with an int n = -1): the error says so,
// empty axis or not.
TEST(Extents, ANegativeNumberMadeUnsignedIsNotAnExtent) {
  const int n = -1;
  expect_error<shape_error>(
      [&] {
        return Extents{3, static_cast<std::size_t>(n)};
      },
      {"axis 1's extent is 18446744073709551615", "-1 as a signed number", "0 or more"});
  expect_error<shape_error>(
      [&] {
        return Extents{static_cast<std::size_t>(-2), 0};
      },
      {"axis 0's extent", "-2 as a signed number"});
}

TEST(Extents, IteratesOverItsAxes) {
  const Extents e{2, 3, 4};
  std::size_t product = 1, count = 0;
  for (std::size_t extent : e) {
    product *= extent;
    ++count;
  }
  EXPECT_EQ(count, 3u);
  EXPECT_EQ(product, 24u);
}

TEST(Extents, EqualityComparesRankAndEveryExtent) {
  EXPECT_EQ((Extents{3, 2}), (Extents{3, 2}));
  EXPECT_NE((Extents{3, 2}), (Extents{2, 3}));
  EXPECT_NE((Extents{3}), (Extents{3, 1}));
  EXPECT_NE(Extents{}, (Extents{1}));
  EXPECT_EQ(Extents{}, Extents{});
}

TEST(Extents, RankEightIsTheMaximum) {
  EXPECT_EQ(Extents::max_rank, 8u);
  EXPECT_EQ((Extents{1, 2, 1, 2, 1, 2, 1, 2}.size()), 16u);
  expect_error<shape_error>([] { return Extents{1, 1, 1, 1, 1, 1, 1, 1, 1}; }, {"rank 9", "maximum of 8"});
}

TEST(Extents, OfAStaticShape) {
  EXPECT_EQ((Extents::of<Shape<3, 2>>()), (Extents{3, 2}));
  EXPECT_EQ(Extents::of<Shape<>>(), Extents{});
  EXPECT_EQ((Extents::of<Shape<2, 3, 4>>().size()), 24u);
}

TEST(Extents, FitsAShapeWithTheSameRankAndEqualStaticExtents) {
  EXPECT_TRUE((fusegrad::fits<Shape<3, 2>>(Extents{3, 2})));
  EXPECT_FALSE((fusegrad::fits<Shape<3, 2>>(Extents{2, 3})));
  EXPECT_TRUE((fusegrad::fits<Shape<3, dyn>>(Extents{3, 7})));
  EXPECT_FALSE((fusegrad::fits<Shape<3, dyn>>(Extents{4, 7})));
  EXPECT_FALSE((fusegrad::fits<Shape<3, dyn>>(Extents{3})));
  EXPECT_TRUE((fusegrad::fits<Shape<>>(Extents{})));
  EXPECT_FALSE((fusegrad::fits<Shape<>>(Extents{1})));
}

TEST(Extents, RequireFitsNamesTheCallAndBothShapes) {
  EXPECT_NO_THROW((fusegrad::require_fits<Shape<3, dyn>>(Extents{3, 7}, "Var::from")));
  expect_error<shape_error>(
      [] {
        fusegrad::require_fits<Shape<3, dyn>>(Extents{4, 7}, "Var::from");
      },
      {"Var::from", "(4, 7)", "(3, dyn)"});
}

TEST(Broadcast, EqualExtentsStay) { EXPECT_EQ(fusegrad::broadcast({3, 2}, {3, 2}), (Extents{3, 2})); }

TEST(Broadcast, OnesStretchToTheOtherExtent) {
  EXPECT_EQ(fusegrad::broadcast({3, 1}, {1, 4}), (Extents{3, 4}));
  EXPECT_EQ(fusegrad::broadcast({1}, {1}), (Extents{1}));
  EXPECT_EQ(fusegrad::broadcast({0}, {1}), (Extents{0}));  // NumPy: an empty axis stays empty
}

TEST(Broadcast, TheShorterShapeGetsLeadingAxes) {
  EXPECT_EQ(fusegrad::broadcast({2, 3}, {4, 1, 3}), (Extents{4, 2, 3}));
  EXPECT_EQ(fusegrad::broadcast({2, 1, 4}, {3, 1}), (Extents{2, 3, 4}));
  EXPECT_EQ(fusegrad::broadcast({}, {5, 2}), (Extents{5, 2}));
  EXPECT_EQ(fusegrad::broadcast({5, 2}, {}), (Extents{5, 2}));
  EXPECT_EQ(fusegrad::broadcast({}, {}), Extents{});
}

TEST(Broadcast, AMismatchThrowsAndNamesBothShapesAndTheAxis) {
  const std::string what = expect_error<shape_error>(
      [] {
        (void)fusegrad::broadcast({3, 2}, {4});
      },
      {"(3, 2)", "(4)", "axis 1", "2 and 4"});
  EXPECT_EQ(what,
            "fusegrad: shapes (3, 2) and (4) do not broadcast: axis 1 of the result has extents 2 and 4; "
            "extents must be equal or one of them 1 (axes align from the right)");
  expect_error<shape_error>([] { (void)fusegrad::broadcast({2, 3}, {3, 3}); }, {"(2, 3)", "(3, 3)", "axis 0"});
}

// broadcasts_to: the target's shape unchanged (an in-place update's operand, broadcast_to's input).
TEST(Broadcast, BroadcastsToKeepsTheTargetsShape) {
  EXPECT_TRUE(fusegrad::broadcasts_to({2, 3}, {2, 3}));
  EXPECT_TRUE(fusegrad::broadcasts_to({3}, {2, 3}));
  EXPECT_TRUE(fusegrad::broadcasts_to({2, 1}, {2, 3}));
  EXPECT_TRUE(fusegrad::broadcasts_to({}, {2, 3}));
  EXPECT_TRUE(fusegrad::broadcasts_to({1, 1}, {4, 2, 3}));
  EXPECT_TRUE(fusegrad::broadcasts_to({1}, {0}));            // an empty axis takes a 1
  EXPECT_FALSE(fusegrad::broadcasts_to({2, 3}, {3}));        // the result would grow
  EXPECT_FALSE(fusegrad::broadcasts_to({1, 2, 3}, {2, 3}));  // so would its rank
  EXPECT_FALSE(fusegrad::broadcasts_to({3}, {3, 1}));        // 3 does not fit 1
  EXPECT_FALSE(fusegrad::broadcasts_to({2}, {2, 3}));
  EXPECT_FALSE(fusegrad::broadcasts_to({0}, {1}));
}

TEST(Broadcast, ShapeErrorIsAFusegradErrorAndARuntimeError) {
  expect_error<fusegrad::error>([] { (void)fusegrad::broadcast({2}, {3}); }, {"(2)", "(3)"});
  expect_error<std::runtime_error>([] { (void)fusegrad::broadcast({2}, {3}); }, {"do not broadcast"});
}

TEST(ReduceExtents, DropsOrKeepsTheReducedAxes) {
  const std::array<bool, 3> middle{false, true, false};
  EXPECT_EQ(fusegrad::reduce_extents({2, 3, 4}, middle, fusegrad::keep_dims::no), (Extents{2, 4}));
  EXPECT_EQ(fusegrad::reduce_extents({2, 3, 4}, middle, fusegrad::keep_dims::yes), (Extents{2, 1, 4}));
  const std::array<bool, 3> all{true, true, true};
  EXPECT_EQ(fusegrad::reduce_extents({2, 3, 4}, all, fusegrad::keep_dims::no), Extents{});
  EXPECT_EQ(fusegrad::reduce_extents({2, 3, 4}, all, fusegrad::keep_dims::yes), (Extents{1, 1, 1}));
}

}  // namespace
