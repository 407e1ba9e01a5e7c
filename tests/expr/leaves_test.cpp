// expr/leaves_test.cpp -- Var and Const: building them from values and Eigen objects, views, and run-time shape errors.
#include <cstddef>
#include <tuple>
#include <utility>
#include <vector>

#include <gtest/gtest.h>
#include <Eigen/Core>

#include <fusegrad/fusegrad.hpp>

#include "support/expect_array.hpp"
#include "support/expect_error.hpp"

namespace {

namespace fg = fusegrad;
using fg::Extents;
using fg::test::expect_array_near;
using fg::test::expect_error;

TEST(Leaves, FromAnInitializerList) {
  fg::Var<double, fg::Shape<2, 2>> x{1.0, 2.0, 3.0, 4.0};
  EXPECT_EQ(x.extents(), (Extents{2, 2}));
  expect_array_near(x.value(), {1, 2, 3, 4});
  fg::Var<double, fg::Shape<fg::dyn, 2>> y(Extents{3, 2}, {1, 2, 3, 4, 5, 6});
  EXPECT_EQ(y.extents(), (Extents{3, 2}));
  expect_array_near(y.value(), {1, 2, 3, 4, 5, 6});
}

TEST(Leaves, ZerosOfExtentsInBraces) {
  std::size_t n = 3;  // not a constant, as a length read at run time
  const fg::Var<double, fg::Shape<fg::dyn>> x({n});
  EXPECT_EQ(x.extents(), Extents{3});
  expect_array_near(x.value(), {0, 0, 0});
  const fg::Const<float, fg::Shape<2, fg::dyn>> c({2, n});
  EXPECT_EQ(c.extents(), (Extents{2, 3}));
  expect_error<fg::shape_error>([&] { fg::Var<double, fg::Shape<2, fg::dyn>> y({n, n}); }, {"(3, 3)", "(2, dyn)"});
}

TEST(Leaves, AWrongNumberOfValuesThrows) {
  expect_error<fg::shape_error>([] { fg::Var<double, fg::Shape<3>> x{1.0, 2.0}; }, {"2 values given for shape (3)"});
  expect_error<fg::shape_error>([] { fg::Var<double, fg::Shape<3>> x{1.0, 2.0, 3.0, 4.0}; }, {"4 values", "(3)"});
  expect_error<fg::shape_error>(
      [] {
        fg::Const<double, fg::Shape<fg::dyn>> c(Extents{4}, {1.0, 2.0});
      },
      {"2 values", "(4)"});
}

TEST(Leaves, ExtentsThatDoNotFitTheDeclaredShapeThrow) {
  expect_error<fg::shape_error>(
      [] {
        fg::Var<double, fg::Shape<3, fg::dyn>> x(Extents{2, 5});
      },
      {"(2, 5)", "(3, dyn)"});
  expect_error<fg::shape_error>([] { fg::Var<double, fg::Shape<fg::dyn>> x(Extents{2, 5}); }, {"(2, 5)", "(dyn)"});
  expect_error<fg::shape_error>([] { fg::Var<double, fg::Shape<4>> x(Eigen::VectorXd::Zero(3)); }, {"(3)", "(4)"});
}

TEST(Leaves, FromEigenVectors) {
  Eigen::VectorXd v(3);
  v << 1, 2, 3;
  fg::Var<double, fg::Shape<fg::dyn>> x(v);
  EXPECT_EQ(x.extents(), (Extents{3}));
  expect_array_near(x.value(), {1, 2, 3});
  EXPECT_NE(x.data(), v.data()) << "an owning leaf copies";
  fg::Const<double, fg::Shape<3>> c(Eigen::Array3d(4, 5, 6));
  expect_array_near(c.value(), {4, 5, 6});
  fg::Var<float, fg::Shape<fg::dyn>> f(v);  // converted to the leaf's scalar type
  expect_array_near(f.value(), {1, 2, 3});
}

// A column-major Eigen matrix is copied in row-major order: element (i,j) lands at i*cols + j.
TEST(Leaves, FromAColumnMajorMatrixIsCopiedRowMajor) {
  Eigen::MatrixXd m(2, 3);  // column-major storage: 1 4 2 5 3 6
  m << 1, 2, 3,             //
      4, 5, 6;
  fg::Var<double, fg::Shape<fg::dyn, fg::dyn>> x(m);
  EXPECT_EQ(x.extents(), (Extents{2, 3}));
  expect_array_near(x.value(), {1, 2, 3, 4, 5, 6});
  fg::Const<double, fg::Shape<2, 3>> c(m);
  expect_array_near(c.value(), {1, 2, 3, 4, 5, 6});
}

TEST(Leaves, FromARowMajorMatrix) {
  Eigen::Matrix<double, 2, 3, Eigen::RowMajor> m;
  m << 1, 2, 3,  //
      4, 5, 6;
  fg::Var<double, fg::Shape<2, 3>> x(m);
  expect_array_near(x.value(), {1, 2, 3, 4, 5, 6});
  // Row 0 summed over axis 1 is 6: the layout is really rows of 3.
  expect_array_near(fg::eval(fg::sum(x, fg::axes<1>)), {6, 15});
}

// A moved-from leaf is still one whose extents describe its values: an expression over it reads nothing that is gone.
TEST(Leaves, AMovedFromLeafIsEmptyOrZeros) {
  fg::Var<double, fg::Shape<fg::dyn, 2>> x(Extents{3, 2}, {1, 2, 3, 4, 5, 6});
  const fg::Var<double, fg::Shape<fg::dyn, 2>> y = std::move(x);
  expect_array_near(y.value(), {1, 2, 3, 4, 5, 6});
  EXPECT_EQ(x.extents(), (Extents{0, 2}));  // NOLINT(bugprone-use-after-move): the moved-from state is the point
  EXPECT_EQ(x.value().size(), 0);
  EXPECT_EQ(fg::eval(fg::sum(x * x)), 0.0);

  fg::Var<double, fg::Shape<fg::dyn>> target(Extents{2}, {7, 8});
  fg::Var<double, fg::Shape<fg::dyn>> source(Extents{1}, {9});
  target = std::move(source);  // Eigen's move assignment swaps: the source would hold the target's old values
  expect_array_near(target.value(), {9});
  EXPECT_EQ(source.extents(), (Extents{0}));  // NOLINT(bugprone-use-after-move)
  EXPECT_EQ(source.value().size(), 0);

  // 4096 doubles are past the fixed-storage limit: the values live on the heap, and the moved-from leaf keeps its
  // static shape with zeros in it.
  fg::Var<double, fg::Shape<4096>> big;
  big.value().setConstant(2.0);
  const fg::Var<double, fg::Shape<4096>> taken = std::move(big);
  EXPECT_EQ(taken.value().sum(), 8192.0);
  EXPECT_EQ(big.value().size(), 4096);  // NOLINT(bugprone-use-after-move)
  EXPECT_EQ(fg::eval(fg::sum(big)), 0.0);
}

// A view reads the caller's memory: no copy, and a change to the memory changes the next eval.
TEST(Leaves, AViewReadsCallerMemoryWithoutCopying) {
  std::vector<double> data{1.0, 2.0, 3.0};
  fg::Var<double, fg::Shape<fg::dyn>, fg::view> x(data.data(), {3});
  EXPECT_EQ(x.data(), data.data());
  const auto f = fg::sum(x * x);
  EXPECT_EQ(fg::eval(f), 14.0);
  data[2] = 10.0;
  EXPECT_EQ(fg::eval(f), 105.0);
  const auto [value, dx] = fg::value_and_grad(f, x);
  EXPECT_EQ(value, 105.0);
  expect_array_near(dx, {2, 4, 20});
}

// A C array, const or not, is viewed through its pointer: a static shape needs no extents.
TEST(Leaves, AViewOfACArray) {
  double values[3] = {1.0, 2.0, 3.0};
  const double weights[3] = {3.0, 2.0, 1.0};
  fg::Var<double, fg::Shape<3>, fg::view> x(values);
  const fg::Const<double, fg::Shape<3>, fg::view> w(weights);
  EXPECT_EQ(x.data(), values);
  EXPECT_EQ(fg::eval(fg::sum(x * w)), 10.0);
}

TEST(Leaves, ViewsOfEigenObjects) {
  Eigen::VectorXd v(4);
  v << 1, 2, 3, 4;
  fg::Const<double, fg::Shape<fg::dyn>, fg::view> c(v);
  EXPECT_EQ(c.data(), v.data());
  EXPECT_EQ(c.extents(), (Extents{4}));
  Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> m(2, 2);
  m << 1, 2, 3, 4;
  fg::Var<double, fg::Shape<2, 2>, fg::view> w(m);
  EXPECT_EQ(w.data(), m.data());
  m(1, 0) = 30;  // row-major: element (1,0) is the third value
  expect_array_near(fg::eval(fg::matmul(w, w)), {1 + 2 * 30, 2 + 2 * 4, 30 + 4 * 30, 2 * 30 + 16});
  // A static view of a raw pointer.
  const double raw[3] = {7, 8, 9};
  fg::Const<double, fg::Shape<3>, fg::view> r(raw);
  expect_array_near(fg::eval(r * 1.0), {7, 8, 9});
}

// A Map or a block of a named object is viewed where its values lie, by the rank rule of Eigen input; values that are
// not one after another (a row of a column-major matrix, a map with an outer stride) are a value_error.
TEST(Leaves, ViewsOfEigenMapsAndBlocks) {
  std::vector<double> buffer{1, 2, 3, 4, 5, 6};
  const Eigen::Map<Eigen::VectorXd> mapped(buffer.data(), 4);
  fg::Var<double, fg::Shape<fg::dyn>, fg::view> x(mapped);
  EXPECT_EQ(x.data(), buffer.data());
  const auto [value, dx] = fg::value_and_grad(fg::sum(x * x), x);
  EXPECT_EQ(value, 1.0 + 4.0 + 9.0 + 16.0);
  expect_array_near(dx, {2, 4, 6, 8});

  const fg::Const<double, fg::Shape<fg::dyn>, fg::view> head(mapped.head(3));
  EXPECT_EQ(head.data(), buffer.data());
  EXPECT_EQ(fg::eval(fg::sum(head)), 6.0);
  // A temporary Map does not own what it views.
  const fg::Const<double, fg::Shape<3>, fg::view> tail(Eigen::Map<const Eigen::VectorXd>(buffer.data() + 3, 3));
  expect_array_near(fg::eval(tail * 1.0), {4, 5, 6});

  const Eigen::Map<const Eigen::Matrix<double, 2, 3, Eigen::RowMajor>> rows(buffer.data());
  const fg::Const<double, fg::Shape<2, 3>, fg::view> m(rows);
  EXPECT_EQ(m.extents(), (Extents{2, 3}));
  expect_array_near(fg::eval(fg::sum(m, fg::axes<1>)), {6, 15});
  const fg::Const<double, fg::Shape<fg::dyn>, fg::view> second_row(rows.row(1));
  expect_array_near(fg::eval(second_row * 1.0), {4, 5, 6});
  // One row of a row-major matrix lies in one run, whatever the matrix's outer stride.
  const fg::Const<double, fg::Shape<fg::dyn, fg::dyn>, fg::view> part_of_a_row(rows.block(1, 1, 1, 2));
  EXPECT_EQ(part_of_a_row.extents(), (Extents{1, 2}));
  expect_array_near(fg::eval(part_of_a_row * 1.0), {5, 6});

  const Eigen::MatrixXd column_major = Eigen::MatrixXd::Zero(3, 3);
  using dyn_view = fg::Const<double, fg::Shape<fg::dyn>, fg::view>;
  EXPECT_THROW(dyn_view{column_major.row(1)}, fg::value_error);
  const Eigen::Map<const Eigen::Matrix<double, 2, 2, Eigen::RowMajor>, 0, Eigen::OuterStride<>> strided(
      buffer.data(), 2, 2, Eigen::OuterStride<>(3));
  using square_view = fg::Const<double, fg::Shape<2, 2>, fg::view>;
  EXPECT_THROW(square_view{strided}, fg::value_error);
}

// Run-time broadcasting: (3) and (4) clash; the shape_error names both shapes.
// An expression's extents are read by reference inside the library; a temporary expression gives a copy, which
// outlives it (under AddressSanitizer a reference into the temporary's leaf would be a use after scope).
TEST(Leaves, TheExtentsOfATemporaryExpressionOutliveIt) {
  const auto make = [](std::size_t n) { return fg::Const<double, fg::Shape<fg::dyn>>(Eigen::ArrayXd::Ones(n)); };
  const Extents& of_unary = fg::exp(make(3)).extents();
  const Extents& of_binary = (fg::exp(make(4)) + 1.0).extents();
  EXPECT_EQ(of_unary, (Extents{3}));
  EXPECT_EQ(of_binary, (Extents{4}));
  std::size_t axes_total = 0;
  for (const std::size_t n : (fg::Tensor::zeros({4, 2}) * 2.0).extents()) axes_total += n;
  EXPECT_EQ(axes_total, 6u);
}

TEST(Leaves, RunTimeBroadcastMismatchNamesBothShapes) {
  fg::Var<double, fg::Shape<fg::dyn>> a(Extents{3}), b(Extents{4});
  expect_error<fg::shape_error>([&] { (void)fg::eval(a + b); }, {"(3)", "(4)", "do not broadcast"});
  expect_error<fg::shape_error>([&] { (void)fg::value_and_grad(fg::sum(a * b), a, b); }, {"(3)", "(4)"});
  // A static (2, 3) beside a dyn (dyn, 3) of run-time extents (4, 3).
  fg::Var<double, fg::Shape<2, 3>> s;
  fg::Var<double, fg::Shape<fg::dyn, 3>> d(Extents{4, 3});
  expect_error<fg::shape_error>([&] { (void)fg::eval(s - d); }, {"(2, 3)", "(4, 3)"});
  // Deep inside an expression, the error still names the two clashing shapes.
  fg::Var<double, fg::Shape<fg::dyn, fg::dyn>> p(Extents{5, 1}), q(Extents{2, 3});
  expect_error<fg::shape_error>([&] { (void)fg::eval(fg::sum(fg::exp(p) * fg::sin(q))); }, {"(5, 1)", "(2, 3)"});
}

// A static operand beside a dyn one whose run-time extents hold as many elements but do not
// broadcast: NumPy rejects (2,3) + (6) and (2,3) + (3,2); so must fusegrad, instead of pairing the
// elements in memory order.
TEST(Leaves, StaticBesideDynOfTheSameSizeButAnotherShapeThrows) {
  fg::Var<double, fg::Shape<2, 3>> s{1, 2, 3, 4, 5, 6};
  fg::Var<double, fg::Shape<fg::dyn>> flat(Extents{6});
  fg::Var<double, fg::Shape<fg::dyn, fg::dyn>> transposed(Extents{3, 2});
  expect_error<fg::shape_error>([&] { (void)fg::eval(s + flat); }, {"(2, 3)", "(6)"});
  expect_error<fg::shape_error>([&] { (void)fg::eval(s + transposed); }, {"(2, 3)", "(3, 2)"});
  expect_error<fg::shape_error>([&] { (void)fg::value_and_grad(fg::sum(s * transposed), s); }, {"(2, 3)", "(3, 2)"});
}

// A dyn operand beside a static one takes the static shape (Shape<3> + Shape<dyn> is a Shape<3>): a node above that
// pair, whose operands are then both of static shape, still compares the dyn operand's run-time extents, in every
// entry point, and nothing is written.
TEST(Leaves, ADynBesideAStaticDeepInsideIsStillChecked) {
  fg::Var<double, fg::Shape<3>> a{1, 2, 3}, c{1, 1, 1};
  fg::Var<double, fg::Shape<fg::dyn>> b({4}, {10, 20, 30, 40});
  expect_error<fg::shape_error>([&] { (void)fg::eval((a + b) * c); }, {"(3)", "(4)"});
  expect_error<fg::shape_error>([&] { (void)fg::value_and_grad(fg::sum((a + b) * c), a, b); }, {"(3)", "(4)"});
  expect_error<fg::shape_error>([&] { (void)fg::value_and_grad(fg::sum(2.0 * fg::exp(a - b)), a); }, {"(3)", "(4)"});
  expect_error<fg::shape_error>([&] { (void)fg::vjp((a + b) * c, Eigen::Array3d::Ones(), a); }, {"(3)", "(4)"});
  Eigen::Array3d da = Eigen::Array3d::Constant(7.0);
  Eigen::Array4d db = Eigen::Array4d::Constant(7.0);
  expect_error<fg::shape_error>([&] { (void)fg::value_and_grad_into(fg::sum((a + b) * c), std::tie(da, db), a, b); },
                                {"(3)", "(4)"});
  EXPECT_TRUE((da == 7.0).all());
  EXPECT_TRUE((db == 7.0).all());
  // Of the right length, it runs: d/db sum((a + b) * c) = c.
  fg::Var<double, fg::Shape<fg::dyn>> b3({3}, {10, 20, 30});
  const auto [value, ga, gb] = fg::value_and_grad(fg::sum((a + b3) * c), a, b3);
  EXPECT_EQ(value, 66.0);
  expect_array_near(gb, {1, 1, 1});
}

// Run-time extents that broadcast: (5,1) x (1,3) -> (5,3), gradients back in each operand's shape.
TEST(Leaves, RunTimeBroadcastGradientsComeBackInEachShape) {
  fg::Var<double, fg::Shape<fg::dyn, fg::dyn>> p(Extents{5, 1}, {1, 2, 3, 4, 5}), q(Extents{1, 3}, {1, 10, 100});
  const auto [value, dp, dq] = fg::value_and_grad(fg::sum(p * q), p, q);
  EXPECT_EQ(value, 15.0 * 111.0);
  expect_array_near(dp, {111, 111, 111, 111, 111});
  expect_array_near(dq, {15, 15, 15});
}

}  // namespace
