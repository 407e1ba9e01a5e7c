// ops/shape_ops_test.cpp -- reshape, flatten, squeeze, unsqueeze, permute, transpose(x, i, j), broadcast_to, slice,
// select, index_select and gather: against PyTorch's figures in every layer, closed forms, shapes, errors, gradcheck.
#include <cstdint>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include <gtest/gtest.h>

#include <fusegrad/fusegrad.hpp>

#include "data/shape_ops/torch_reference.hpp"
#include "support/expect_array.hpp"
#include "support/expect_error.hpp"
#include "support/torch_figures.hpp"
#include "support/typed_cases.hpp"

namespace {

namespace fg = fusegrad;
namespace torch = fg::test::torch_shape_reference;
using fg::Extents;
using fg::test::expect_array_near;
using fg::test::expect_error;
using fg::test::expect_torch_figures;

// A macro whose function comes last: a lambda's commas are not in parentheses.
#define EXPECT_TORCH_FIGURES(name, ...) \
  expect_torch_figures(__VA_ARGS__, torch::name##_x, torch::name##_upstream, torch::name##_value, torch::name##_grad)

// --- PyTorch's figures (tests/data/shape_ops/make_reference.py), static and run-time forms ---------------------

TEST(ShapeOpsAgainstPyTorch, ReshapeAndFlattenKeepTheRowMajorOrder) {
  EXPECT_TORCH_FIGURES(reshape_3x2, [](const auto& x) { return fg::reshape<3, 2>(x); });
  EXPECT_TORCH_FIGURES(reshape_3x2, [](const auto& x) { return fg::reshape(x, {-1, 2}); });
  EXPECT_TORCH_FIGURES(flatten, [](const auto& x) { return fg::flatten(x); });
  EXPECT_TORCH_FIGURES(flatten, [](const auto& x) { return fg::flatten(x, 0, -1); });
}
TEST(ShapeOpsAgainstPyTorch, SqueezeAndUnsqueeze) {
  EXPECT_TORCH_FIGURES(unsqueeze_1, [](const auto& x) { return fg::unsqueeze(x, fg::axes<1>); });
  EXPECT_TORCH_FIGURES(unsqueeze_1, [](const auto& x) { return fg::unsqueeze(x, -2); });
  EXPECT_TORCH_FIGURES(squeeze_of_unsqueezed,
                       [](const auto& x) { return fg::squeeze(fg::unsqueeze(fg::unsqueeze(x, 0), 2)); });
  EXPECT_TORCH_FIGURES(squeeze_of_unsqueezed, [](const auto& x) {
    return fg::squeeze(fg::squeeze(fg::unsqueeze(x, fg::axes<0>), fg::axes<0>), fg::axes<1>);
  });  // squeezing an axis of extent 3 keeps it, as in PyTorch
}
TEST(ShapeOpsAgainstPyTorch, PermuteAndTranspose) {
  EXPECT_TORCH_FIGURES(permute_1_0, [](const auto& x) { return fg::permute(x, fg::axes<1, 0>); });
  EXPECT_TORCH_FIGURES(permute_1_0, [](const auto& x) { return fg::permute(x, {-1, 0}); });
  EXPECT_TORCH_FIGURES(transpose_3d,
                       [](const auto& x) { return fg::transpose(fg::reshape<2, 3, 1>(x), fg::axes<0, 1>); });
  EXPECT_TORCH_FIGURES(transpose_3d, [](const auto& x) { return fg::transpose(fg::reshape(x, {2, 3, 1}), 1, 0); });
  // Static axes over a rank known only at run time: the run-time swap.
  EXPECT_TORCH_FIGURES(transpose_3d, [](const auto& x) {
    return fg::transpose(fg::reshape(x, {2, 3, 1}), fg::axes<0, 1>);
  });
}
TEST(ShapeOpsAgainstPyTorch, BroadcastToSumsTheGradientBack) {
  EXPECT_TORCH_FIGURES(broadcast_to_4x2x3, [](const auto& x) { return fg::broadcast_to<4, 2, 3>(x); });
  EXPECT_TORCH_FIGURES(broadcast_to_4x2x3, [](const auto& x) { return fg::broadcast_to(x, {4, 2, 3}); });
  EXPECT_TORCH_FIGURES(broadcast_to_column,
                       [](const auto& x) { return fg::broadcast_to<3, 4>(fg::reshape<3, 1>(fg::select(x, 0, 1))); });
}
TEST(ShapeOpsAgainstPyTorch, SliceAndSelectPutTheGradientBackInPlace) {
  EXPECT_TORCH_FIGURES(slice_step_2, [](const auto& x) { return fg::slice<1, 0, 3, 2>(x); });
  EXPECT_TORCH_FIGURES(slice_step_2, [](const auto& x) { return fg::slice(x, 1, 0, 3, 2); });
  EXPECT_TORCH_FIGURES(slice_negative_begin, [](const auto& x) { return fg::slice(x, -1, -2, 3); });
  EXPECT_TORCH_FIGURES(select_last_row, [](const auto& x) { return fg::select(x, 0, -1); });
}
TEST(ShapeOpsAgainstPyTorch, IndexSelectAndGatherAccumulateRepeatedIndices) {
  EXPECT_TORCH_FIGURES(index_select_repeats, [](const auto& x) { return fg::index_select(x, 1, {2, 0, 2}); });
  EXPECT_TORCH_FIGURES(gather_repeats, [](const auto& x) {
    return fg::gather(x, 1, fg::Indices({2, 2, 0, 1}, {2, 2}));
  });
  EXPECT_TORCH_FIGURES(gather_rows, [](const auto& x) { return fg::gather(x, 0, fg::Indices({1, 0, 1}, {1, 3})); });
}

// The same tensor twice in one cat: both parts' gradients reach it.
TEST(ShapeOpsAgainstPyTorch, CatSendsEachPartItsGradient) {
  EXPECT_TORCH_FIGURES(cat_dim1_with_itself,
                       [](const auto& x) { return fg::cat(1, x, fg::slice(x, 1, 0, 1) * 2.0, x); });
  EXPECT_TORCH_FIGURES(cat_dim1_with_itself,
                       [](const auto& x) { return fg::cat(-1, x, fg::slice(x, 1, 0, 1) * 2.0, x); });
}

// --- shapes, static where the parameters are ----------------------------------------------------------------------

TEST(ShapeOpsShapes, StaticParametersGiveStaticShapes) {
  const fg::Var<double, fg::Shape<2, 3>> x;
  static_assert(std::is_same_v<decltype(fg::reshape<3, 2>(x))::static_shape, fg::Shape<3, 2>>);
  static_assert(std::is_same_v<decltype(fg::flatten(x))::static_shape, fg::Shape<6>>);
  static_assert(std::is_same_v<decltype(fg::unsqueeze(x, fg::axes<2>))::static_shape, fg::Shape<2, 3, 1>>);
  static_assert(std::is_same_v<decltype(fg::squeeze(fg::reshape<1, 6>(x)))::static_shape, fg::Shape<6>>);
  static_assert(std::is_same_v<decltype(fg::squeeze(x, fg::axes<1>))::static_shape, fg::Shape<2, 3>>);
  static_assert(std::is_same_v<decltype(fg::permute(x, fg::axes<1, 0>))::static_shape, fg::Shape<3, 2>>);
  static_assert(std::is_same_v<decltype(fg::broadcast_to<5, 2, 3>(x))::static_shape, fg::Shape<5, 2, 3>>);
  static_assert(std::is_same_v<decltype(fg::slice<1, 1, 3>(x))::static_shape, fg::Shape<2, 2>>);
  static_assert(std::is_same_v<decltype(fg::slice<1, 0, 3, 2>(x))::static_shape, fg::Shape<2, 2>>);
  // A dyn extent stays dyn; parameters given at run time leave the shape to run time.
  const fg::Var<double, fg::Shape<fg::dyn, 3>> d(Extents{4, 3});
  static_assert(std::is_same_v<decltype(fg::flatten(d))::static_shape, fg::Shape<fg::dyn>>);
  static_assert(std::is_same_v<decltype(fg::permute(d, fg::axes<1, 0>))::static_shape, fg::Shape<3, fg::dyn>>);
  static_assert(std::is_same_v<decltype(fg::reshape(x, {6}))::static_shape, fg::AnyShape>);
  // cat along a static axis: known extents add up, a dyn one leaves the sum dyn and is filled
  // by a known one off the axis; along a run-time axis the shape is known at run time.
  const fg::Var<double, fg::Shape<2, 4>> y;
  static_assert(std::is_same_v<decltype(fg::cat(fg::axes<1>, x, y, x))::static_shape, fg::Shape<2, 10>>);
  static_assert(std::is_same_v<decltype(fg::cat(fg::axes<0>, x, d))::static_shape, fg::Shape<fg::dyn, 3>>);
  static_assert(std::is_same_v<decltype(fg::cat(fg::axes<1>, d, x))::static_shape, fg::Shape<2, 6>>);
  static_assert(std::is_same_v<decltype(fg::cat(1, x, y))::static_shape, fg::AnyShape>);
  EXPECT_EQ(fg::cat(fg::axes<0>, x, d).extents(), (Extents{6, 3}));
  EXPECT_EQ(fg::cat(fg::axes<1>, x, y, x).extents(), (Extents{2, 10}));
  EXPECT_EQ(fg::flatten(d).extents(), (Extents{12}));
  EXPECT_EQ(fg::flatten(fg::reshape(d, {2, 2, 3}), 1).extents(), (Extents{2, 6}));
  EXPECT_EQ(fg::flatten(fg::reshape(d, {2, 2, 3}), 0, 1).extents(), (Extents{4, 3}));
  EXPECT_EQ(fg::unsqueeze(d, -1).extents(), (Extents{4, 3, 1}));
  EXPECT_EQ(fg::squeeze(fg::reshape(d, {1, 12, 1})).extents(), (Extents{12}));
  EXPECT_EQ(fg::transpose(fg::reshape(d, {2, 2, 3}), 0, -1).extents(), (Extents{3, 2, 2}));
}

// A permutation of a 3-d tensor, element by element: y[i][j][k] = x[k][i][j] for order (2, 0, 1).
// A scalar has one axis, 0, for transpose as for the reductions: PyTorch's torch.tensor(1.5).transpose(0, 0) is the
// scalar.
TEST(ShapeOpsShapes, TransposeOfAScalarsOneAxisIsTheScalar) {
  const fg::Var<double, fg::Shape<>> s(1.5);
  static_assert(std::is_same_v<decltype(fg::transpose(s, fg::axes<0, 0>))::static_shape, fg::Shape<>>);
  const auto [value, ds] = fg::value_and_grad(fg::transpose(s, fg::axes<0, 0>) * s, s);
  EXPECT_EQ(value, 2.25);
  EXPECT_EQ(ds, 3.0);
}

TEST(ShapeOpsShapes, PermuteMovesEveryElementWhereItsIndexSays) {
  fg::Tensor x = fg::Tensor::arange(0, 24).requires_grad_();
  const fg::Tensor cube = fg::reshape(x, {2, 3, 4});
  const fg::Tensor y = fg::permute(cube, {2, 0, 1});
  ASSERT_EQ(y.shape(), (Extents{4, 2, 3}));
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 2; ++j)
      for (int k = 0; k < 3; ++k) EXPECT_EQ(y.data()[(i * 2 + j) * 3 + k], double((j * 3 + k) * 4 + i));
  // The gradient of sum(w * y) is w permuted back: weight each element by its own index in y.
  const fg::Tensor w = fg::Tensor::arange(0, 24);
  fg::Tensor(fg::sum(y * fg::reshape(w, {4, 2, 3}))).backward();
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 2; ++j)
      for (int k = 0; k < 3; ++k) EXPECT_EQ(x.grad().data()[(j * 3 + k) * 4 + i], double((i * 2 + j) * 3 + k));
}

// --- a reshape of a tensor is a view, as in PyTorch -----------------------------------------------------------------

TEST(ShapeOpsViews, AReshapedTensorSharesItsValues) {
  fg::Tensor x = fg::Tensor::arange(0, 6).requires_grad_();
  const fg::Tensor r = fg::reshape(x, {2, 3}), u = fg::unsqueeze(r, 0), f = fg::flatten(u);
  EXPECT_EQ(r.data(), x.data());
  EXPECT_EQ(u.data(), x.data());
  EXPECT_EQ(f.data(), x.data());
  EXPECT_EQ(r.grad_fn_name(), "ViewBackward");
  EXPECT_EQ(u.grad_fn_name(), "UnsqueezeBackward");
  fg::Tensor(fg::sum(f * fg::Tensor::arange(1, 7))).backward();
  expect_array_near(x.grad().eigen(), {1, 2, 3, 4, 5, 6});
  // Without gradients, still a view; an expression is computed, not viewed.
  const fg::Tensor plain = fg::Tensor::ones({4});
  EXPECT_EQ(fg::Tensor(fg::reshape(plain, {2, 2})).data(), plain.data());
  EXPECT_NE(fg::Tensor(fg::reshape(plain * 2.0, {2, 2})).data(), plain.data());
}

TEST(ShapeOpsViews, WritingThroughAViewIsAnInPlaceChangeOfTheOriginal) {
  fg::Tensor x = fg::Tensor::ones({4}).requires_grad_();
  const fg::Tensor y = fg::sum(fg::square(x));  // reads x for its gradient
  fg::Tensor v = fg::reshape(x, {2, 2});
  {
    const fg::NoGradGuard no_grad;
    v.mul_(3.0);
  }
  expect_array_near(x.eigen(), {3, 3, 3, 3});
  expect_error<fg::graph_error>([&] { y.backward(); }, {"modified in place"});
}

// A view's backward reads no values: the source may change in place before it runs (PyTorch's ViewBackward).
TEST(ShapeOpsViews, AViewsGradientDoesNotNeedTheSourceUnchanged) {
  fg::Tensor x = fg::Tensor::ones({4}).requires_grad_();
  const fg::Tensor v = fg::reshape(x, {2, 2});
  {
    const fg::NoGradGuard no_grad;
    x.mul_(5.0);
  }
  v.backward(fg::Tensor::from({1.0, 2.0, 3.0, 4.0}, {2, 2}));
  expect_array_near(x.grad().eigen(), {1, 2, 3, 4});
}

// A reshape of a parameter shares its values: written in place in grad mode it would change the parameter
// behind the graph's back, so it is refused there (as PyTorch refuses), and allowed under NoGradGuard.
TEST(ShapeOpsViews, AViewOfAParameterIsWrittenOnlyWithoutGradMode) {
  fg::Tensor w = fg::Tensor::zeros({4}).requires_grad_();
  fg::Tensor v = fg::reshape(w, {2, 2});
  fg::Tensor vv = fg::flatten(v);
  expect_error<fg::graph_error>([&] { v.add_(fg::Tensor::ones({2, 2})); }, {"reshape of a leaf", "NoGradGuard"});
  expect_error<fg::graph_error>([&] { vv.mul_(2.0); }, {"reshape of a leaf"});
  expect_array_near(w.eigen(), {0, 0, 0, 0});
  {
    const fg::NoGradGuard no_grad;
    v.add_(fg::Tensor::ones({2, 2}));
  }
  expect_array_near(w.eigen(), {1, 1, 1, 1});
  // A view of a tensor that takes no gradient is written freely.
  fg::Tensor data = fg::Tensor::zeros({4});
  fg::Tensor data_view = fg::reshape(data, {4, 1});
  data_view.add_(fg::Tensor::ones({4, 1}));
  expect_array_near(data.eigen(), {1, 1, 1, 1});
}

// Which views are refused is decided when they are written: a reshape taken before its source became a parameter is
// refused too (PyTorch: "a view of a leaf Variable that requires grad is being used in an in-place operation"), and
// allowed again once the source no longer requires grad.
TEST(ShapeOpsViews, AViewOfALaterParameterIsWrittenOnlyWithoutGradMode) {
  fg::Tensor w = fg::Tensor::ones({4});
  fg::Tensor v = fg::reshape(w, {2, 2});
  w.requires_grad_();
  expect_error<fg::graph_error>([&] { v.mul_(10.0); }, {"reshape of a leaf", "NoGradGuard"});
  expect_array_near(w.eigen(), {1, 1, 1, 1});
  w.requires_grad_(false);
  v.mul_(10.0);
  expect_array_near(w.eigen(), {10, 10, 10, 10});
  // A detached copy shares the values as a leaf of its own: while it requires grad, so does the storage.
  fg::Tensor d = w.detach().requires_grad_();
  expect_error<fg::graph_error>([&] { v.mul_(2.0); }, {"reshape of a leaf"});
  d = fg::Tensor();  // the last leaf that requires grad over these values is gone
  v.mul_(2.0);
  expect_array_near(w.eigen(), {20, 20, 20, 20});
}

// Recorded results that are destroyed leave the count of parameters over their values alone: a recorded reshape of
// w, gone, does not make w's views writable in grad mode; a detached copy of a gone result (which never required grad
// as a leaf) is written through its reshape freely.
TEST(ShapeOpsViews, DestroyedResultsLeaveTheParameterCountAlone) {
  fg::Tensor w = fg::Tensor::ones({4}).requires_grad_();
  for (int k = 0; k < 3; ++k) {
    const fg::Tensor recorded = fg::reshape(w, {2, 2});
    EXPECT_FALSE(recorded.is_leaf());
  }
  fg::Tensor v;
  {
    const fg::NoGradGuard no_grad;
    v = fg::reshape(w, {2, 2});
  }
  expect_error<fg::graph_error>([&] { v.mul_(10.0); }, {"reshape of a leaf"});
  fg::Tensor d;
  {
    const fg::Tensor h = fg::taped(w * 2.0);
    d = h.detach();
  }
  fg::Tensor dv = fg::reshape(d, {4});
  dv.mul_(2.0);
  expect_array_near(d.eigen(), {4, 4, 4, 4});
  expect_array_near(w.eigen(), {1, 1, 1, 1});
}

// A view made under NoGradGuard of a computed tensor shares values that backward reads: written in grad mode it is
// refused (PyTorch: "A view was created in no_grad mode and is being modified inplace with grad mode enabled"), so
// the gradient of sum(h * h) with h = 2 w stays 8 w = (8, 16).
TEST(ShapeOpsViews, AViewOfAResultMadeWithoutGradModeIsWrittenOnlyWithoutIt) {
  fg::Tensor w = fg::Tensor::from({1.0, 2.0}, {2}).requires_grad_();
  const fg::Tensor h = fg::taped(w * 2.0);
  fg::Tensor r, rr;
  {
    const fg::NoGradGuard no_grad;
    r = fg::reshape(h, {2, 1});
  }
  rr = fg::flatten(r);  // a view of that view, made in grad mode, is refused as well
  expect_error<fg::graph_error>([&] { r.mul_(10.0); }, {"made while grad mode was off", "clone()"});
  expect_error<fg::graph_error>([&] { rr.mul_(10.0); }, {"made while grad mode was off"});
  expect_array_near(h.eigen(), {2, 4});
  fg::Tensor(fg::sum(h * h)).backward();
  expect_array_near(w.grad().eigen(), {8, 16});
}

// A deferred value (a fused sum not yet read) is computed before a view shows it.
TEST(ShapeOpsViews, AViewOfADeferredValueComputesItFirst) {
  fg::Tensor x = fg::Tensor::from({1.0, 2.0, 3.0}, {3}).requires_grad_();
  const fg::Tensor total = fg::sum(x * x);
  const fg::Tensor as_vector = fg::reshape(total, {1});
  EXPECT_EQ(as_vector.data()[0], 14.0);
  fg::Tensor(fg::sum(as_vector * 2.0)).backward();
  expect_array_near(x.grad().eigen(), {4, 8, 12});
}

// --- errors: a clear message, nothing recorded -------------------------------------------------------------------

TEST(ShapeOpsErrors, RunTimeMistakesNameTheShapeAndTheParameter) {
  const fg::Tensor x = fg::Tensor::zeros({2, 3});
  using shape_error = fg::shape_error;
  expect_error<shape_error>(
      [&] {
        (void)fg::Tensor(fg::reshape(x, {4, 2}));
      },
      {"fusegrad::reshape", "(2, 3)", "(4, 2)", "6 elements", "8"});
  expect_error<shape_error>([&] { (void)fg::Tensor(fg::reshape(x, {-1, 4})); }, {"(2, 3)", "(-1, 4)"});
  expect_error<shape_error>([&] { (void)fg::Tensor(fg::reshape(x, {-1, -1})); }, {"(-1, -1)", "one of them may be -1"});
  expect_error<shape_error>(
      [&] {
        (void)fg::Tensor(fg::reshape(x, {4294967296LL, 4294967296LL, -1}));
      },
      {"fusegrad::reshape", "multiply to more than 2^59 elements"});
  expect_error<shape_error>(
      [&] {
        (void)fg::Tensor(fg::reshape(x, {4294967296LL, 4294967296LL}));
      },
      {"fusegrad::reshape", "multiply to more than 2^59 elements"});
  // No elements: extents whose product passes 2^59 before a 0 or a -1 are a shape all the same, as in PyTorch.
  const fg::Tensor none = fg::Tensor::zeros({0});
  const std::int64_t huge = std::int64_t(1) << 58;
  EXPECT_EQ(fg::Tensor(fg::reshape(none, {4, huge, 0})).shape(), (Extents{4, std::size_t(huge), 0}));
  EXPECT_EQ(fg::Tensor(fg::reshape(none, {4, huge, -1})).shape(), (Extents{4, std::size_t(huge), 0}));
  // A static slice of a tensor is checked at run time, and says what the run-time form says.
  expect_error<shape_error>([&] { (void)fg::Tensor(fg::slice<2, 0, 1>(x)); },
                            {"fusegrad::slice", "axis 2 is out of range", "axes -2 to 1"});
  expect_error<shape_error>([&] { (void)fg::Tensor(fg::slice<1, 0, 4>(x)); },
                            {"fusegrad::slice", "elements 0 to 4", "give 0 <= begin <= end <= 3"});
  expect_error<shape_error>([&] { (void)fg::Tensor(fg::unsqueeze(x, 3)); },
                            {"fusegrad::unsqueeze", "axis 3", "-3 to 2"});
  expect_error<shape_error>([&] { (void)fg::Tensor(fg::squeeze(x, -3)); }, {"fusegrad::squeeze", "axis -3"});
  expect_error<shape_error>([&] { (void)fg::Tensor(fg::flatten(x, 1, 0)); }, {"fusegrad::flatten", "start axis 1"});
  expect_error<shape_error>([&] { (void)fg::Tensor(fg::permute(x, {0, 0})); }, {"fusegrad::permute", "twice"});
  expect_error<shape_error>([&] { (void)fg::Tensor(fg::permute(x, {1, 0, 2})); }, {"fusegrad::permute", "rank 2"});
  expect_error<shape_error>([&] { (void)fg::Tensor(fg::transpose(x, 0, 2)); },
                            {"fusegrad::transpose", "axis 2", "(2, 3)"});
  expect_error<shape_error>(
      [&] {
        (void)fg::Tensor(fg::broadcast_to(x, {3, 3}));
      },
      {"fusegrad::broadcast_to", "(2, 3)", "(3, 3)"});
  expect_error<shape_error>([&] { (void)fg::Tensor(fg::broadcast_to(x, {3})); }, {"(2, 3)", "(3)"});
  expect_error<shape_error>([&] { (void)fg::Tensor(fg::slice(x, 1, 1, 4)); },
                            {"fusegrad::slice", "1 to 4", "axis 1 of extent 3"});
  expect_error<shape_error>([&] { (void)fg::Tensor(fg::slice(x, 0, 2, 1)); }, {"2 to 1"});
  expect_error<fg::value_error>([&] { (void)fg::Tensor(fg::slice(x, 0, 0, 2, 0)); }, {"step 0"});
  // A step past the end takes the first element, as x[:, 0:3:2**62] does in PyTorch (counting the elements must not
  // overflow).
  EXPECT_EQ(fg::Tensor(fg::slice(x, 1, 0, 3, std::numeric_limits<std::int64_t>::max())).shape(), (fg::Extents{2, 1}));
  EXPECT_EQ(fg::Tensor(fg::slice(x, 1, 1, 1, std::numeric_limits<std::int64_t>::max())).shape(), (fg::Extents{2, 0}));
  // A scalar flattens to one element, its axes read as those of a vector: 0 and -1 only (torch.flatten(tensor(1.), 5)
  // raises "Dimension out of range (expected to be in range of [-1, 0], but got 5)").
  const fg::Tensor scalar = fg::Tensor::scalar(1.0);
  EXPECT_EQ(fg::Tensor(fg::flatten(scalar, 0, -1)).shape(), (fg::Extents{1}));
  expect_error<shape_error>([&] { (void)fg::Tensor(fg::flatten(scalar, 5)); }, {"fusegrad::flatten (start)", "axis 5"});
  expect_error<shape_error>([&] { (void)fg::Tensor(fg::flatten(scalar, 0, 1)); },
                            {"fusegrad::flatten (end)", "axis 1"});
  expect_error<shape_error>([&] { (void)fg::Tensor(fg::select(x, 1, 3)); },
                            {"fusegrad::select", "index 3", "axis 1 of extent 3"});
  expect_error<shape_error>(
      [&] {
        (void)fg::Tensor(fg::index_select(x, 0, {0, -3}));
      },
      {"fusegrad::index_select", "index -3", "axis 0 of extent 2"});
  // One index alone picks as a vector of one does (torch.index_select(x, 1, torch.tensor(2)) has shape (2, 1)); the
  // gradient goes back to that column. Indices of rank 2 are refused.
  fg::Tensor picked_from = fg::Tensor::from({1.0, 2, 3, 4, 5, 6}, {2, 3}).requires_grad_();
  const fg::Tensor picked = fg::index_select(picked_from, 1, fg::Indices({2}, fg::Extents{}));
  EXPECT_EQ(picked.shape(), (fg::Extents{2, 1}));
  EXPECT_EQ(picked.at({1, 0}), 6.0);
  fg::Tensor(fg::sum(picked)).backward();
  expect_array_near(picked_from.grad().eigen(), {0, 0, 1, 0, 0, 1});
  expect_error<shape_error>(
      [&] {
        (void)fg::Tensor(fg::index_select(x, 0, fg::Indices({0, 1}, {1, 2})));
      },
      {"fusegrad::index_select", "a vector or one index", "(1, 2)"});
  expect_error<shape_error>(
      [&] {
        (void)fg::Tensor(fg::gather(x, 1, fg::Indices({0, 3}, {2, 1})));
      },
      {"fusegrad::gather", "index 3", "extent 3"});
  expect_error<shape_error>([&] { (void)fg::Tensor(fg::gather(x, 1, fg::Indices({0, 1}, {2}))); }, {"same rank"});
  // A scalar counts as rank 1 on either side, as in PyTorch: torch.gather(torch.tensor(2.5), 0, torch.tensor([0, 0]))
  // is [2.5, 2.5] with gradient 2, and torch.gather(torch.tensor([2.5, 3.5]), 0, torch.tensor(1)) is 3.5 with
  // gradient [0, 1].
  fg::Tensor one_value = fg::Tensor::scalar(2.5).requires_grad_();
  const fg::Tensor twice = fg::gather(one_value, 0, fg::Indices({0, 0}, {2}));
  EXPECT_EQ(twice.shape(), fg::Extents{2});
  expect_array_near(twice.eigen(), {2.5, 2.5});
  fg::Tensor(fg::sum(twice)).backward();
  EXPECT_EQ(one_value.grad().item(), 2.0);
  fg::Tensor pair = fg::Tensor::from({2.5, 3.5}, {2}).requires_grad_();
  const fg::Tensor one = fg::gather(pair, 0, fg::Indices({1}, fg::Extents{}));
  EXPECT_EQ(one.shape(), fg::Extents{});
  EXPECT_EQ(one.item(), 3.5);
  fg::Tensor(one).backward();
  expect_array_near(pair.grad().eigen(), {0, 1});
  expect_error<shape_error>([&] { (void)fg::Tensor(fg::gather(x, 1, fg::Indices({1}, fg::Extents{}))); },
                            {"same rank", "a scalar counts as rank 1"});
  expect_error<shape_error>(
      [&] {
        (void)fg::Tensor(fg::gather(x, 1, fg::Indices({0, 1, 0}, {3, 1})));
      },
      {"larger than x", "axis 0"});
  expect_error<shape_error>([] { (void)fg::Indices({1, 2, 3}, {2, 2}); }, {"3 indices", "(2, 2)"});
  expect_error<shape_error>(
      [&] {
        (void)fg::Tensor(fg::cat(0, x, fg::Tensor::zeros({2, 2})));
      },
      {"fusegrad::cat", "tensor 1", "(2, 2)", "(2, 3)", "every axis but 0"});
}

TEST(ShapeOpsErrors, AFailedOperationLeavesItsOperandAsItWas) {
  fg::Tensor x = fg::Tensor::arange(0, 6).requires_grad_();
  EXPECT_THROW((void)fg::Tensor(fg::select(fg::reshape(x, {2, 3}), 0, 5)), fg::shape_error);
  expect_array_near(x.eigen(), {0, 1, 2, 3, 4, 5});
  EXPECT_FALSE(x.grad().defined());
  fg::Tensor(fg::sum(fg::select(fg::reshape(x, {2, 3}), 0, 1))).backward();
  expect_array_near(x.grad().eigen(), {0, 0, 0, 1, 1, 1});
}

TEST(ShapeOpsErrors, IndicesFromValuesMustBeWholeNumbers) {
  const std::vector<double> good{2, 0, 1}, bad{2, 0.5, 1};
  EXPECT_EQ(fg::Indices::from_values(std::span<const double>(good), {3})[0], 2);
  expect_error<fg::value_error>([&] { (void)fg::Indices::from_values(std::span<const double>(bad), {3}); },
                                {"0.5", "position 1", "whole number"});
}

// A whole number past 9e15 (2^53 is about 9.007e15, where doubles stop holding every whole number) is refused for
// that reason, not as a number that is not whole.
TEST(ShapeOpsErrors, IndicesFromValuesPastTheCapSayWhy) {
  const std::vector<double> huge{0, 1e16}, negative{-1e16}, at_cap{9e15};
  const std::string message =
      expect_error<fg::value_error>([&] { (void)fg::Indices::from_values(std::span<const double>(huge), {2}); },
                                    {"fusegrad::Indices", "1e+16", "position 1", "9e15", "2^53"});
  EXPECT_EQ(message.find("not an index"), std::string::npos) << message;
  expect_error<fg::value_error>([&] { (void)fg::Indices::from_values(std::span<const double>(negative), {1}); },
                                {"-1e+16", "-9e15 to 9e15"});
  EXPECT_EQ(fg::Indices::from_values(std::span<const double>(at_cap), {1})[0], 9'000'000'000'000'000);
}

// --- gradcheck in every layer, float and double, static and dyn shapes ----------------------------------------------

template <class C>
class ShapeOps : public ::testing::Test {
 protected:
  std::mt19937 rng{fg::test::typed_seed};
  typename C::template var<2, 3> x = C::template make_var<2, 3>(rng, -2, 2);
};
TYPED_TEST_SUITE(ShapeOps, fg::test::OpCases, fg::test::CaseNames);

// Each op is composed with non-linear ones on both sides, so a gradient sent to the wrong element shows.
TYPED_TEST(ShapeOps, Reshape) {
  TypeParam::expect_gradcheck(
      [](const auto& v) {
        return fg::sin(fg::reshape(fg::exp(v), {3, -1})) * fg::reshape<3, 2>(v);
      },
      this->x);
}
TYPED_TEST(ShapeOps, Flatten) {
  TypeParam::expect_gradcheck([](const auto& v) { return fg::flatten(fg::sin(v)) * fg::flatten(v); }, this->x);
}
TYPED_TEST(ShapeOps, Squeeze) {
  TypeParam::expect_gradcheck([](const auto& v) { return fg::sin(fg::squeeze(fg::unsqueeze(v * v, 1))); }, this->x);
}
TYPED_TEST(ShapeOps, Unsqueeze) {
  TypeParam::expect_gradcheck([](const auto& v) { return fg::unsqueeze(fg::sin(v), 0) * fg::unsqueeze(v, 1); },
                              this->x);
}
TYPED_TEST(ShapeOps, Permute) {
  TypeParam::expect_gradcheck(
      [](const auto& v) {
        return fg::permute(fg::reshape(fg::sin(v), {1, 2, 3}), {2, 0, 1}) * fg::reshape(v, {3, 1, 2});
      },
      this->x);
}
TYPED_TEST(ShapeOps, Broadcast_to) {
  TypeParam::expect_gradcheck([](const auto& v) { return fg::sin(fg::broadcast_to(v * v, {4, 2, 3})); }, this->x);
}
TYPED_TEST(ShapeOps, Slice) {
  TypeParam::expect_gradcheck(
      [](const auto& v) { return fg::exp(fg::slice(fg::sin(v), 1, -2, 3)) * fg::slice<1, 0, 3, 2>(v); }, this->x);
}
TYPED_TEST(ShapeOps, Select) {
  TypeParam::expect_gradcheck([](const auto& v) { return fg::sin(fg::select(v * v, 1, -1)); }, this->x);
}
TYPED_TEST(ShapeOps, Index_select) {
  TypeParam::expect_gradcheck([](const auto& v) { return fg::sin(fg::index_select(v * v, 1, {2, 2, 0, 1})); }, this->x);
}
TYPED_TEST(ShapeOps, Cat) {
  TypeParam::expect_gradcheck(
      [](const auto& v) { return fg::sin(fg::cat(0, fg::exp(v), v * v, fg::slice(v, 0, 1, 2))); }, this->x);
}
TYPED_TEST(ShapeOps, Gather) {
  TypeParam::expect_gradcheck(
      [](const auto& v) {
        return fg::sin(fg::gather(fg::exp(v), 0, fg::Indices({1, 1, 0, 0, 0, 1}, {2, 3})));
      },
      this->x);
}

}  // namespace

#undef EXPECT_TORCH_FIGURES  // a unity build continues with another file
