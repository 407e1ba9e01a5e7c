// tape/join_test.cpp -- cat and stack of lists of tensors, split and chunk: values, gradients, shapes, errors.
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <fusegrad/check/gtest.hpp>
#include <fusegrad/fusegrad.hpp>

#include "support/expect_array.hpp"
#include "support/expect_error.hpp"

namespace {

namespace fg = fusegrad;
using fg::Extents;
using fg::test::expect_array_near;
using fg::test::expect_error;

TEST(Join, CatJoinsAnyNumberOfTensorsInOneNode) {
  fg::Tensor a = fg::Tensor::from({1.0, 2.0, 3.0, 4.0}, {2, 2}).requires_grad_();
  fg::Tensor b = fg::Tensor::from({5.0, 6.0}, {2, 1}).requires_grad_();
  const fg::Tensor c = fg::Tensor::from({7.0, 8.0, 9.0, 10.0, 11.0, 12.0}, {2, 3});  // takes no gradient
  const fg::Tensor joined = fg::cat({a, b, c}, 1);
  EXPECT_EQ(joined.shape(), (Extents{2, 6}));
  expect_array_near(joined.eigen(), {1, 2, 5, 7, 8, 9, 3, 4, 6, 10, 11, 12});
  EXPECT_EQ(joined.grad_fn_name(), "CatBackward");
  // d/d(parts) of sum(w * joined): each part gets its columns of w.
  const fg::Tensor w = fg::reshape(fg::Tensor::arange(0, 12), {2, 6});
  fg::Tensor(fg::sum(joined * w)).backward();
  expect_array_near(a.grad().eigen(), {0, 1, 6, 7});
  expect_array_near(b.grad().eigen(), {2, 8});
  EXPECT_FALSE(c.grad().defined());
  // Along axis 0, and with a negative axis; a single tensor is joined with nothing.
  EXPECT_EQ(fg::cat({a, fg::Tensor::zeros({3, 2})}, 0).shape(), (Extents{5, 2}));
  EXPECT_EQ(fg::cat({a, b}, -1).shape(), (Extents{2, 3}));
  expect_array_near(fg::cat({a}, 0).eigen(), {1, 2, 3, 4});
}

// The same tensor several times: every part's gradient reaches it.
TEST(Join, CatOfOneTensorTwiceAddsBothGradients) {
  fg::Tensor x = fg::Tensor::from({1.0, 2.0}, {2}).requires_grad_();
  const std::vector<fg::Tensor> parts{x, fg::square(x), x};
  fg::Tensor(fg::sum(fg::cat(parts, 0) * fg::Tensor::from({1.0, 2.0, 3.0, 4.0, 5.0, 6.0}, {6}))).backward();
  // 1 + 2 * 3 * x0... : d/dx0 = 1 + 3 * 2 * 1 + 5 = 12, d/dx1 = 2 + 4 * 2 * 2 + 6 = 24.
  expect_array_near(x.grad().eigen(), {12, 24});
}

TEST(Join, CatPassesGradcheck) {
  const fg::Tensor x = fg::Tensor::from({0.5, -1.0, 2.0, 0.25}, {2, 2});
  const fg::Tensor y = fg::Tensor::from({1.5, -0.5}, {2, 1});
  EXPECT_TRUE(fg::gtest::gradcheck(
      [](const fg::Tensor& a, const fg::Tensor& b) {
        return fg::sum(fg::sin(fg::cat({a, fg::Tensor(fg::exp(b)), a}, 1)));
      },
      x, y));
}

TEST(Join, StackAddsAnAxis) {
  fg::Tensor a = fg::Tensor::from({1.0, 2.0, 3.0}, {3}).requires_grad_();
  const fg::Tensor b = fg::Tensor::from({4.0, 5.0, 6.0}, {3});
  const fg::Tensor rows = fg::stack({a, b}, 0), columns = fg::stack({a, b}, -1);
  EXPECT_EQ(rows.shape(), (Extents{2, 3}));
  expect_array_near(rows.eigen(), {1, 2, 3, 4, 5, 6});
  EXPECT_EQ(columns.shape(), (Extents{3, 2}));
  expect_array_near(columns.eigen(), {1, 4, 2, 5, 3, 6});
  fg::Tensor(fg::sum(columns * fg::Tensor::from({1.0, 0.0, 2.0, 0.0, 3.0, 0.0}, {3, 2}))).backward();
  expect_array_near(a.grad().eigen(), {1, 2, 3});
  expect_error<fg::shape_error>(
      [&] {
        (void)fg::stack({a, fg::Tensor::zeros({2})}, 0);
      },
      {"fusegrad::stack", "tensor 1", "(2)", "(3)"});
}

TEST(Join, SplitAndChunkAreTheInversesOfCat) {
  fg::Tensor x = fg::Tensor::arange(0, 10).requires_grad_();
  const std::vector<fg::Tensor> sized = fg::split(x, {3, 7}, 0);
  ASSERT_EQ(sized.size(), 2u);
  expect_array_near(sized[0].eigen(), {0, 1, 2});
  EXPECT_EQ(sized[1].numel(), 7u);
  const std::vector<fg::Tensor> fours = fg::split(x, std::size_t{4}, 0);
  ASSERT_EQ(fours.size(), 3u);
  EXPECT_EQ(fours[2].numel(), 2u);  // the last part is smaller
  const std::vector<fg::Tensor> thirds = fg::chunk(x, 3, 0);
  ASSERT_EQ(thirds.size(), 3u);  // 4 + 4 + 2, as PyTorch's chunk
  EXPECT_EQ(thirds[0].numel(), 4u);
  expect_array_near(fg::cat(thirds, 0).eigen(), {0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
  // Gradients flow back through the parts to where they came from.
  fg::Tensor(fg::sum(thirds[1]) + 2.0 * fg::sum(thirds[2])).backward();
  expect_array_near(x.grad().eigen(), {0, 0, 0, 0, 1, 1, 1, 1, 2, 2});
  // An empty axis gives `chunks` empty parts, as in PyTorch (torch.chunk(torch.zeros(0, 2), 3, 0)).
  const std::vector<fg::Tensor> empty_parts = fg::chunk(fg::Tensor::zeros({0, 2}), 3, 0);
  ASSERT_EQ(empty_parts.size(), 3u);
  for (const fg::Tensor& part : empty_parts) EXPECT_EQ(part.shape(), (Extents{0, 2}));
  // A part size of 0 splits an empty axis into one empty part, and nothing else (torch.split(torch.zeros(0, 2), 0)).
  const std::vector<fg::Tensor> by_zero = fg::split(fg::Tensor::zeros({0, 2}), std::size_t{0}, 0);
  ASSERT_EQ(by_zero.size(), 1u);
  EXPECT_EQ(by_zero[0].shape(), (Extents{0, 2}));
  expect_error<fg::value_error>([&] { (void)fg::split(fg::Tensor::zeros({4}), std::size_t{0}, 0); },
                                {"fusegrad::split", "part size of 0", "not 4"});
  const fg::Tensor m = fg::Tensor::zeros({2, 6});
  EXPECT_EQ(fg::chunk(m, 4, 1).size(), 3u);  // ceil(6 / 4) = 2 per chunk: three chunks
  EXPECT_EQ(fg::chunk(m, 4, 1)[0].shape(), (Extents{2, 2}));
}

TEST(Join, MistakesAreClearErrors) {
  const fg::Tensor a = fg::Tensor::zeros({2, 3});
  expect_error<fg::shape_error>(
      [&] {
        (void)fg::cat({a, fg::Tensor::zeros({3, 2})}, 1);
      },
      {"fusegrad::cat", "tensor 1", "(3, 2)", "(2, 3)", "every axis but 1"});
  expect_error<fg::shape_error>([&] { (void)fg::cat({a, fg::Tensor::zeros({2, 3, 1})}, 0); }, {"(2, 3, 1)"});
  expect_error<fg::shape_error>([&] { (void)fg::cat({a}, 2); }, {"fusegrad::cat", "axis 2"});
  expect_error<fg::value_error>([&] { (void)fg::cat(std::vector<fg::Tensor>{}, 0); }, {"nothing to join"});
  expect_error<fg::value_error>(
      [&] {
        (void)fg::cat({a, fg::Tensor()}, 0);
      },
      {"fusegrad::cat", "tensor 1 of the list is undefined", "give it values first"});
  expect_error<fg::value_error>(
      [&] {
        (void)fg::stack({fg::Tensor(), a}, 0);
      },
      {"fusegrad::stack", "tensor 0 of the list is undefined"});
  expect_error<fg::shape_error>([&] { (void)fg::split(a, {1, 1}, 1); }, {"fusegrad::split", "adding up to 2", "3"});
  expect_error<fg::value_error>([&] { (void)fg::chunk(a, 0, 0); }, {"0 chunks"});
  // PyTorch refuses a negative count, as here (its counts are signed: -1 is not a huge number of parts).
  expect_error<fg::value_error>([&] { (void)fg::chunk(a, -1, 1); }, {"fusegrad::chunk", "-1 chunks", "at least 1"});
  expect_error<fg::value_error>([&] { (void)fg::split(a, -1, 1); }, {"fusegrad::split", "part size of -1"});
  // An empty axis gives one empty part per chunk: more parts than memory holds is fusegrad's memory_error.
  expect_error<fg::memory_error>([] { (void)fg::chunk(fg::Tensor::zeros({0}), std::int64_t{1} << 62, 0); },
                                 {"fusegrad::chunk", "4611686018427387904 empty parts", "fewer chunks"});
  // An empty vector beside a tensor of another rank is refused, where PyTorch skips it (a rule kept for old code);
  // empty vectors alone join.
  const fg::Tensor empty_vector = fg::Tensor::from(std::vector<double>{}, {0});
  expect_error<fg::shape_error>(
      [&] {
        (void)fg::cat({a, empty_vector}, 0);
      },
      {"fusegrad::cat", "tensor 1", "(0)", "(2, 3)"});
  EXPECT_EQ(fg::cat({empty_vector, empty_vector}, 0).shape(), fg::Extents{0});
}

// Sizes are checked one by one against what is left of the extent, so sizes whose sum wraps around in size_t are
// refused. PyTorch 1.13, torch.split(t, [2**63 - 1, 4], 1) on a (2, 3) tensor: "split_with_sizes expects
// split_sizes to sum exactly to 3 (input tensor's size at dimension 1), but got split_sizes=[9223372036854775807, 4]".
TEST(Join, SplitRefusesSizesPastTheExtentEvenWhenTheirSumWraps) {
  const fg::Tensor t = fg::Tensor::from({1.0, 2.0, 3.0, 4.0, 5.0, 6.0}, {2, 3});
  const std::vector<std::size_t> wraps{SIZE_MAX, 4};  // SIZE_MAX + 4 is 3 in size_t
  expect_error<fg::shape_error>(
      [&] { (void)fg::split(t, std::span<const std::size_t>(wraps), 1); },
      {"fusegrad::split", "more than 3", "part 0", "18446744073709551615", "must add up to the extent"});
  expect_error<fg::shape_error>(
      [&] {
        (void)fg::split(t, {2, 2}, 1);
      },
      {"fusegrad::split", "more than 3", "part 1", "must add up to the extent"});
  const std::vector<std::size_t> wraps_later{1, SIZE_MAX, 3};  // 1 + SIZE_MAX + 3 is 3 as well
  expect_error<fg::shape_error>([&] { (void)fg::split(t, std::span<const std::size_t>(wraps_later), 1); },
                                {"fusegrad::split", "part 1"});
  EXPECT_EQ(fg::split(t, {1, 2}, 1)[1].shape(), (Extents{2, 2}));
}

// chunk's part size is ceil(extent / chunks), computed without wrapping around: more chunks than elements give one
// element each. PyTorch 1.13: torch.chunk(t, n, 1) of a (2, 3) tensor gives 3 chunks of (2, 1) for n = 3, 4, 100
// and 2**62; torch.chunk(torch.arange(5.), 4) gives sizes [2, 2, 1].
TEST(Join, ChunkIntoMoreChunksThanElementsGivesOneEach) {
  const fg::Tensor t = fg::Tensor::from({0.0, 1.0, 2.0, 3.0, 4.0, 5.0}, {2, 3});
  for (const std::int64_t chunks :
       {std::int64_t{3}, std::int64_t{4}, std::int64_t{100}, std::int64_t{1} << 62,
        std::numeric_limits<std::int64_t>::max() - 1, std::numeric_limits<std::int64_t>::max()}) {
    const std::vector<fg::Tensor> parts = fg::chunk(t, chunks, 1);
    ASSERT_EQ(parts.size(), 3u) << chunks;
    for (std::size_t k = 0; k < 3; ++k) {
      EXPECT_EQ(parts[k].shape(), (Extents{2, 1}));
      expect_array_near(parts[k].eigen(), {double(k), double(k + 3)});
    }
  }
  const std::vector<fg::Tensor> fives = fg::chunk(fg::Tensor::arange(0, 5), 4, 0);
  ASSERT_EQ(fives.size(), 3u);
  EXPECT_EQ(fives[0].shape(), Extents{2});
  EXPECT_EQ(fives[2].shape(), Extents{1});
}

// stack's new axis is one of rank + 1, and its errors name stack. PyTorch 1.13, torch.stack([m, m], 3) of (2, 3)
// tensors: "Dimension out of range (expected to be in range of [-3, 2], but got 3)".
TEST(Join, StackNamesItselfForAnAxisOutOfRange) {
  const fg::Tensor m = fg::Tensor::ones({2, 3});
  expect_error<fg::shape_error>(
      [&] {
        (void)fg::stack({m, m}, 3);
      },
      {"fusegrad::stack", "axis 3", "(2, 3)", "-3 to 2"});
  const std::string message = expect_error<fg::shape_error>(
      [&] {
        (void)fg::stack({m, m}, -4);
      },
      {"fusegrad::stack", "axis -4"});
  EXPECT_EQ(message.find("unsqueeze"), std::string::npos) << message;
  EXPECT_EQ(fg::stack({m, m}, 2).shape(), (Extents{2, 3, 2}));
  EXPECT_EQ(fg::stack({m, m}, -3).shape(), (Extents{2, 2, 3}));
  const fg::Tensor widest = fg::Tensor::ones({1, 1, 1, 1, 1, 1, 1, 1});
  expect_error<fg::shape_error>([&] { (void)fg::stack({widest}, 0); }, {"fusegrad::stack", "most axes"});
}

}  // namespace
