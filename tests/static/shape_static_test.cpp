// static/shape_static_test.cpp -- compile-time shape rules: Shape traits, broadcast_t, reduce_t, concepts.
// Compile-only: every check is a static_assert, so compiling this file is passing it.
#include <type_traits>

#include <fusegrad/shape/broadcast.hpp>
#include <fusegrad/shape/extents.hpp>
#include <fusegrad/shape/reduce.hpp>
#include <fusegrad/shape/shape.hpp>

namespace {

using fusegrad::AllAxes;
using fusegrad::Axes;
using fusegrad::broadcast_t;
using fusegrad::broadcastable_v;
using fusegrad::dyn;
using fusegrad::keep_dims;
using fusegrad::reduce_t;
using fusegrad::Shape;

// --- Shape and its traits ---------------------------------------------------------------------
static_assert(fusegrad::rank_v<Shape<>> == 0, "a scalar has rank 0");
static_assert(fusegrad::rank_v<Shape<3, 2>> == 2, "Shape<3, 2> has rank 2");
static_assert(fusegrad::size_v<Shape<>> == 1, "a scalar holds 1 element");
static_assert(fusegrad::size_v<Shape<3, 2>> == 6, "Shape<3, 2> holds 6 elements");
static_assert(fusegrad::size_v<Shape<2, 3, 4>> == 24, "Shape<2, 3, 4> holds 24 elements");
static_assert(fusegrad::size_v<Shape<5, 0>> == 0, "an empty axis makes an empty shape");
static_assert(fusegrad::is_static_v<Shape<3, 2>>, "no dyn extent: static");
static_assert(fusegrad::is_static_v<Shape<>>, "a scalar is static");
static_assert(!fusegrad::is_static_v<Shape<3, dyn>>, "a dyn extent: not static");
static_assert(fusegrad::extent_v<Shape<3, 2>, 0> == 3, "axis 0 of Shape<3, 2> is 3");
static_assert(fusegrad::extent_v<Shape<3, 2>, 1> == 2, "axis 1 of Shape<3, 2> is 2");
static_assert(fusegrad::extent_v<Shape<dyn, 2>, 0> == dyn, "a dyn extent reads back as dyn");

// --- broadcast_t: NumPy rules, aligned from the last axis -------------------------------------
static_assert(std::is_same_v<broadcast_t<Shape<3, 2>, Shape<3, 2>>, Shape<3, 2>>, "equal shapes");
static_assert(std::is_same_v<broadcast_t<Shape<>, Shape<3, 2>>, Shape<3, 2>>, "scalar on the left");
static_assert(std::is_same_v<broadcast_t<Shape<3, 2>, Shape<>>, Shape<3, 2>>, "scalar on the right");
static_assert(std::is_same_v<broadcast_t<Shape<>, Shape<>>, Shape<>>, "two scalars");
static_assert(std::is_same_v<broadcast_t<Shape<3, 1>, Shape<1, 4>>, Shape<3, 4>>, "(3, 1) x (1, 4) -> (3, 4)");
static_assert(std::is_same_v<broadcast_t<Shape<2, 3>, Shape<4, 1, 3>>, Shape<4, 2, 3>>,
              "the shorter shape gets leading axes: (2, 3) x (4, 1, 3) -> (4, 2, 3)");
static_assert(std::is_same_v<broadcast_t<Shape<3>, Shape<5, 4, 3>>, Shape<5, 4, 3>>, "(3) x (5, 4, 3) -> (5, 4, 3)");
static_assert(std::is_same_v<broadcast_t<Shape<5, 1, 1>, Shape<4, 1>>, Shape<5, 4, 1>>, "1 x 1 stays 1");
static_assert(std::is_same_v<broadcast_t<Shape<dyn>, Shape<4>>, Shape<4>>, "dyn vs 4 -> 4 (checked at run time)");
static_assert(std::is_same_v<broadcast_t<Shape<4>, Shape<dyn>>, Shape<4>>, "4 vs dyn -> 4");
static_assert(std::is_same_v<broadcast_t<Shape<dyn>, Shape<1>>, Shape<dyn>>, "dyn vs 1 -> dyn");
static_assert(std::is_same_v<broadcast_t<Shape<1>, Shape<dyn>>, Shape<dyn>>, "1 vs dyn -> dyn");
static_assert(std::is_same_v<broadcast_t<Shape<dyn>, Shape<dyn>>, Shape<dyn>>, "dyn vs dyn -> dyn");
static_assert(std::is_same_v<broadcast_t<Shape<dyn, 1>, Shape<3>>, Shape<dyn, 3>>, "(dyn, 1) x (3) -> (dyn, 3)");

static_assert(broadcastable_v<Shape<3, 1>, Shape<1, 4>>, "(3, 1) and (1, 4) broadcast");
static_assert(broadcastable_v<Shape<dyn>, Shape<4>>, "dyn may turn out to be 4");
static_assert(!broadcastable_v<Shape<3, 2>, Shape<4>>, "(3, 2) and (4) clash on the last axis");
static_assert(!broadcastable_v<Shape<2, 3>, Shape<3, 3>>, "(2, 3) and (3, 3) clash on axis 0");

// --- reduce_t: the shape left after summing over axes -----------------------------------------
static_assert(std::is_same_v<reduce_t<Shape<2, 3, 4>>, Shape<>>, "AllAxes is the default: a scalar is left");
static_assert(std::is_same_v<reduce_t<Shape<2, 3, 4>, AllAxes>, Shape<>>, "sum over every axis");
static_assert(std::is_same_v<reduce_t<Shape<2, 3, 4>, AllAxes, keep_dims::yes>, Shape<1, 1, 1>>,
              "keep_dims keeps every axis as 1");
static_assert(std::is_same_v<reduce_t<Shape<2, 3, 4>, Axes<1>>, Shape<2, 4>>, "sum over axis 1");
static_assert(std::is_same_v<reduce_t<Shape<2, 3, 4>, Axes<1>, keep_dims::yes>, Shape<2, 1, 4>>,
              "sum over axis 1, keeping it");
static_assert(std::is_same_v<reduce_t<Shape<2, 3, 4>, Axes<0, 2>>, Shape<3>>, "sum over axes 0 and 2");
static_assert(std::is_same_v<reduce_t<Shape<2, 3, 4>, Axes<2, 0>>, Shape<3>>, "the order of the axes does not matter");
static_assert(std::is_same_v<reduce_t<Shape<2, 3, 4>, Axes<>>, Shape<2, 3, 4>>, "no axes: the shape is unchanged");
static_assert(std::is_same_v<reduce_t<Shape<dyn, 3>, Axes<1>>, Shape<dyn>>, "dyn extents that are kept stay dyn");
static_assert(std::is_same_v<reduce_t<Shape<>, AllAxes>, Shape<>>, "reducing a scalar leaves a scalar");

// --- the concepts -------------------------------------------------------------------------------
static_assert(fusegrad::ShapeType<Shape<>>, "Shape<> is a shape");
static_assert(fusegrad::ShapeType<Shape<3, dyn>>, "Shape<3, dyn> is a shape");
static_assert(!fusegrad::ShapeType<int>, "int is not a shape");
static_assert(!fusegrad::ShapeType<Axes<1>>, "Axes<1> is not a shape");
static_assert(fusegrad::AxesType<Axes<>>, "Axes<> is an axes list");
static_assert(fusegrad::AxesType<Axes<0, 2>>, "Axes<0, 2> is an axes list");
static_assert(fusegrad::AxesType<AllAxes>, "AllAxes is an axes list");
static_assert(!fusegrad::AxesType<Shape<0>>, "Shape<0> is not an axes list");
static_assert(!fusegrad::AxesType<int>, "int is not an axes list");

// --- compile-time Extents ---------------------------------------------------------------------
static_assert(fusegrad::Extents::of<Shape<3, 2>>() == fusegrad::Extents{3, 2}, "Extents::of reads a static shape");
static_assert(fusegrad::broadcast({3, 1}, {4}) == fusegrad::Extents{3, 4}, "run-time broadcasting is constexpr");
static_assert(fusegrad::fits<Shape<3, dyn>>(fusegrad::Extents{3, 7}), "(3, 7) fits (3, dyn)");

}  // namespace
