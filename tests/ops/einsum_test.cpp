// ops/einsum_test.cpp -- einsum: static shapes, errors at run time, the contraction order, einsum inside larger
// recorded expressions, and laws against the same contraction written with matmul, sum and broadcasting.
#include <array>
#include <cstddef>
#include <span>
#include <string>
#include <utility>

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <fusegrad/fusegrad.hpp>

#include "support/expect_array.hpp"
#include "support/expect_error.hpp"

namespace {

namespace fg = fusegrad;
using fg::Extents;
using fg::Tensor;
using fg::test::expect_error;

// An einsum is one node among others: recorded in a fused node with what surrounds it.
// y = 2 (a b) + 1 for a (2,2), b (2,2); d sum(y) / da = 2 * 1 b^T, d/db = 2 a^T 1.
TEST(EinsumInExpressions, RecordedFusedWithWhatSurroundsIt) {
  Tensor a = Tensor::from({1.0, 2.0, 3.0, 4.0}, {2, 2}).requires_grad_();
  Tensor b = Tensor::from({0.5, -1.0, 2.0, 0.0}, {2, 2}).requires_grad_();
  const Tensor y = fg::einsum("ij,jk->ik", a, b) * 2.0 + 1.0;
  EXPECT_EQ(y.grad_fn_name(), "FusedBackward");
  fg::test::expect_array_near(y.eigen(), {2 * (0.5 + 4) + 1, 2 * (-1 + 0) + 1, 2 * (1.5 + 8) + 1, 2 * (-3 + 0) + 1});
  Tensor(fg::sum(y)).backward();
  fg::test::expect_array_near(a.grad().eigen(), {2 * (0.5 - 1), 2 * (2 + 0), 2 * (0.5 - 1), 2 * (2 + 0)});
  fg::test::expect_array_near(b.grad().eigen(), {2 * (1 + 3), 2 * (1 + 3), 2 * (2 + 4), 2 * (2 + 4)});
}

// Static shapes: from the operands' shape traits, dyn where an extent is known only at run time.
TEST(EinsumShapes, StaticWhereTheOperandsAre) {
  const fg::Var<double, fg::Shape<2, 3>> a;
  const fg::Var<double, fg::Shape<3, 4>> b;
  const fg::Var<double, fg::Shape<fg::dyn, 3>> d(Extents{5, 3});
  static_assert(std::is_same_v<decltype(fg::einsum<"ij,jk->ik">(a, b))::static_shape, fg::Shape<2, 4>>);
  static_assert(std::is_same_v<decltype(fg::einsum<"ij,kj->ki">(a, d))::static_shape, fg::Shape<fg::dyn, 2>>);
  static_assert(std::is_same_v<decltype(fg::einsum<"...j->...">(d))::static_shape, fg::Shape<fg::dyn>>);
  static_assert(std::is_same_v<decltype(fg::einsum<"ij,ij">(a, a))::static_shape, fg::Shape<>>);
  static_assert(std::is_same_v<decltype(fg::einsum("ij,jk->ik", a, b))::static_shape, fg::AnyShape>);
  EXPECT_EQ(fg::einsum<"ij,kj->ki">(a, d).extents(), (Extents{5, 2}));
  // A dyn extent that does not fit is found at run time.
  const fg::Var<double, fg::Shape<2, fg::dyn>> wrong(Extents{2, 5});
  expect_error<fg::shape_error>([&] { (void)fg::einsum<"ij,jk->ik">(wrong, b).extents(); },
                                {"einsum(\"ij,jk->ik\")", "label j is 5 in operand 0 and 3 in operand 1"});
}

// Subscripts given at run time: value_error for malformed subscripts, shape_error for shapes that
// do not fit, each quoting the subscripts and naming what is wrong.
TEST(EinsumErrors, SayWhatIsWrongWithTheSubscripts) {
  const Tensor m = Tensor::zeros({2, 3});
  const Tensor v = Tensor::zeros({3});
  expect_error<fg::value_error>([&] { (void)fg::einsum("ij,j1->i", m, v); },
                                {"einsum(\"ij,j1->i\")", "'1' at index 4 is not a subscript"});
  // A byte that is not printable ASCII (here the first of the two of U+00DC) is shown as a number.
  expect_error<fg::value_error>([&] { (void)fg::einsum("i\xc3\x9c", m); }, {"byte 0xc3 at index 1 is not a subscript"});
  expect_error<fg::value_error>([&] { (void)fg::einsum("ij,j->i", m); }, {"name 2 operands and 1 is given"});
  expect_error<fg::value_error>([&] { (void)fg::einsum("ij->k", m); }, {"output label k appears in no operand"});
  expect_error<fg::value_error>([&] { (void)fg::einsum("ij->jj", m); }, {"output label j appears twice"});
  expect_error<fg::value_error>([&] { (void)fg::einsum("i..j", m); }, {"'.' at index 1", "ellipsis"});
  expect_error<fg::value_error>([&] { (void)fg::einsum("...i...", m); }, {"a second \"...\""});
  expect_error<fg::value_error>([&] { (void)fg::einsum("ij->i->j", m); }, {"\"->\" appears twice"});
  expect_error<fg::shape_error>([&] { (void)Tensor(fg::einsum("ijk->i", m)); },
                                {"operand 0 has rank 2 but 3 subscripts"});
  expect_error<fg::shape_error>([&] { (void)Tensor(fg::einsum("i->i", m)); },
                                {"operand 0 has rank 2 but 1 subscript; give one per axis"});
  expect_error<fg::shape_error>([&] { (void)Tensor(fg::einsum("ij,j->i", m, Tensor::zeros({4}))); },
                                {"label j is 3 in operand 0 and 4 in operand 1"});
  expect_error<fg::shape_error>([&] { (void)Tensor(fg::einsum("ii->i", m)); },
                                {"label i is 2 and 3 in operand 0", "diagonal"});
  expect_error<fg::shape_error>(
      [&] {
        (void)Tensor(fg::einsum("...i,...i->...", Tensor::zeros({2, 3}), Tensor::zeros({4, 3})));
      },
      {"the axes under \"...\" do not broadcast: 2 in operand 0 and 4 in operand 1"});
}

// Long subscripts are quoted in part, so that the message always ends in what is wrong.
TEST(EinsumErrors, LongSubscriptsAreQuotedInPart) {
  const Tensor m = Tensor::zeros({2, 3});
  const std::string subscripts = "i" + std::string(900, ' ') + "j1";  // spaces are allowed anywhere
  const std::string what = expect_error<fg::value_error>(
      [&] { (void)fg::einsum(subscripts, m); }, {"einsum(\"i  ", "...\"): ", "'1' at index 902 is not a subscript"});
  EXPECT_LT(what.size(), 200u) << what;
}

// Labels of extent 1 broadcast (PyTorch's rule), and "..." covers broadcast axes; an explicit
// output without "..." sums over them (PyTorch; NumPy refuses).
TEST(EinsumShapes, BroadcastAndEllipsis) {
  EXPECT_EQ(Tensor(fg::einsum("ij,ij->ij", Tensor::zeros({2, 3}), Tensor::zeros({1, 3}))).shape(), (Extents{2, 3}));
  EXPECT_EQ(Tensor(fg::einsum("...ij,...jk", Tensor::zeros({5, 2, 3}), Tensor::zeros({3, 4}))).shape(),
            (Extents{5, 2, 4}));
  const Tensor summed = fg::einsum("...i->i", fg::reshape(Tensor::arange(6), {2, 3}));
  fg::test::expect_array_near(summed.eigen(), {0 + 3, 1 + 4, 2 + 5});
  EXPECT_EQ(Tensor(fg::einsum("ba", Tensor::zeros({2, 3}))).shape(), (Extents{3, 2}));  // implicit: ASCII order
}

// The order of contractions is chosen by cost. For (512,8)(8,512)(512,8) left to right costs
// 512*8*512 + 512*512*8 multiply-adds; contracting the last two first, 8*512*8 + 512*8*8.
TEST(EinsumOrder, TheCheapestOrderIsChosen) {
  std::array<std::size_t, fg::detail::einsum_labels> extent{};
  extent.fill(1);
  const auto label = [](char c) { return std::uint64_t(1) << fg::detail::einsum_letter_label(c); };
  extent[std::size_t(fg::detail::einsum_letter_label('i'))] = 512;
  extent[std::size_t(fg::detail::einsum_letter_label('j'))] = 8;
  extent[std::size_t(fg::detail::einsum_letter_label('k'))] = 512;
  extent[std::size_t(fg::detail::einsum_letter_label('l'))] = 8;
  const std::uint64_t sets[] = {label('i') | label('j'), label('j') | label('k'), label('k') | label('l')};
  const fg::detail::einsum_plan plan = fg::detail::plan_einsum(sets, label('i') | label('l'), extent);
  EXPECT_EQ(plan.cost, 8.0 * 512 * 8 + 512.0 * 8 * 8);
  ASSERT_EQ(plan.steps.size(), 2u);
  EXPECT_EQ(plan.steps[0].left | plan.steps[0].right, 0b110u);  // operands 1 and 2 first
  // Beyond 8 operands the cheapest pair goes first: a chain of 10 matrices of which one pair is
  // cheap to contract begins there.
  std::array<std::uint64_t, 10> chain{};
  extent.fill(4);
  for (std::size_t k = 0; k < chain.size(); ++k) chain[k] = std::uint64_t(1) << k | std::uint64_t(1) << (k + 1);
  extent[4] = extent[5] = extent[6] = 1;  // operands 4 and 5 hold labels 4, 5 and 6: the one cheap pair
  const fg::detail::einsum_plan greedy = fg::detail::plan_einsum(chain, chain[0] | chain[9], extent);
  ASSERT_EQ(greedy.steps.size(), 9u);
  EXPECT_EQ(greedy.steps[0].left | greedy.steps[0].right, (1u << 4) | (1u << 5));
}

// With three operands or more, the forward evaluation keeps its operands' terms, its plan and its intermediate
// products for the joint VJP, which reads them instead of making them again. (3,2)(2,3)(3,2) contracts B C (2x2)
// first: 24 multiply-adds, not 36.
TEST(EinsumBackward, ReadsWhatTheForwardKept) {
  using chain_op = fg::einsum_op<3, fg::detail::einsum_runtime_text<3>>;
  static_assert(fg::SavesForBackward<chain_op>);
  const chain_op chain("ij,jk,kl->il");
  using row_major = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  row_major a(3, 2), b(2, 3), c(3, 2), y(3, 2), dy(3, 2), da(3, 2);
  a << 1, 2, 3, 4, 5, 6;
  b << 1, 0, 2, 0, 1, 1;
  c << 1, 1, 0, 2, 3, 0;
  dy << 1, -1, 2, 0, 0.5, 3;
  const row_major bc = b * c;  // [[7, 1], [3, 2]]
  const fg::operands<double, 3> in{{a.data(), b.data(), c.data()}, {Extents{3, 2}, Extents{2, 3}, Extents{3, 2}}};

  chain_op::saved_type<double> saved;
  chain.value(y.data(), in, &saved);
  EXPECT_TRUE(y.isApprox(a * bc));
  ASSERT_EQ(saved.planned.terms.size(), 3u);  // one term per operand
  ASSERT_EQ(saved.products.size(), 2u);       // one product per step
  ASSERT_TRUE(saved.products[0].has_value());
  EXPECT_FALSE(saved.products[1].has_value());  // the last step's is y itself
  fg::test::expect_array_near(Eigen::Map<const Eigen::ArrayXd>(saved.products[0]->data, 4), {7, 1, 3, 2});

  // dA = dy (B C)^T: doubling the kept product doubles it, so the VJP read the product kept.
  for (double& v : saved.products[0]->owned) v *= 2;
  std::array<double*, 3> dx{da.data(), nullptr, nullptr};
  chain.vjp_all(dx, dy.data(), in, y.data(), &saved);
  EXPECT_TRUE(da.isApprox(2 * dy * bc.transpose()));
  // Given nothing kept, it computes B C itself.
  chain.vjp_all(dx, dy.data(), in, y.data());
  EXPECT_TRUE(da.isApprox(dy * bc.transpose()));

  // dC = Bᵀ Aᵀ dy reads A through the term the forward kept for operand 0: pointed at 3 A, dC triples.
  chain.value(y.data(), in, &saved);
  const row_major a3 = 3 * a;
  ASSERT_EQ(saved.planned.terms[0].data, a.data());  // A's term is A where it is
  saved.planned.terms[0].data = a3.data();
  row_major dc(3, 2);
  const std::array<double*, 3> dc_only{nullptr, nullptr, dc.data()};
  chain.vjp_all(dc_only, dy.data(), in, y.data(), &saved);
  EXPECT_TRUE(dc.isApprox(3 * b.transpose() * a.transpose() * dy));
}

// --- laws: einsum's gradient is that of the same contraction written otherwise ---------------------------------------

Tensor random_tensor(const Extents& e) {
  return Tensor::randn(e, *rc::gen::inRange<std::uint64_t>(0, 1u << 30)).requires_grad_();
}

// The gradients of sum(y1 * R) and sum(y2 * R) with respect to the inputs, compared.
template <class F1, class F2>
void expect_same_gradients(F1 f1, F2 f2, std::initializer_list<Tensor> inputs) {
  const Tensor y1 = f1(), y2 = f2();
  RC_ASSERT(y1.shape() == y2.shape());
  const Tensor r = Tensor::randn(y1.shape(), 7);
  const std::vector<Tensor> g1 = fg::grad(Tensor(fg::sum(y1 * r)), inputs);
  const std::vector<Tensor> g2 = fg::grad(Tensor(fg::sum(y2 * r)), inputs);
  RC_ASSERT(((y1.eigen() - y2.eigen()).abs() <= 1e-12 * (1 + y2.eigen().abs())).all());
  for (std::size_t k = 0; k < g1.size(); ++k)
    RC_ASSERT(((g1[k].eigen() - g2[k].eigen()).abs() <= 1e-12 * (1 + g2[k].eigen().abs())).all());
}

std::size_t extent() { return *rc::gen::inRange<std::size_t>(1, 7); }

RC_GTEST_PROP(EinsumLaws, MatrixProductIsMatmul, ()) {
  const std::size_t m = extent(), k = extent(), n = extent();
  const Tensor a = random_tensor({m, k}), b = random_tensor({k, n});
  expect_same_gradients([&] { return Tensor(fg::einsum("ij,jk->ik", a, b)); }, [&] { return Tensor(fg::matmul(a, b)); },
                        {a, b});
}

RC_GTEST_PROP(EinsumLaws, BatchedProductIsBatchedMatmul, ()) {
  const std::size_t batch = extent(), m = extent(), k = extent(), n = extent();
  const Tensor a = random_tensor({batch, m, k}), b = random_tensor({batch, k, n});
  expect_same_gradients([&] { return Tensor(fg::einsum("bij,bjk->bik", a, b)); },
                        [&] { return Tensor(fg::matmul(a, b)); }, {a, b});
}

RC_GTEST_PROP(EinsumLaws, RowDotProductsAreSumsOfProducts, ()) {
  const std::size_t m = extent(), n = extent();
  const Tensor a = random_tensor({m, n}), b = random_tensor({m, n});
  expect_same_gradients([&] { return Tensor(fg::einsum("ij,ij->i", a, b)); },
                        [&] { return Tensor(fg::sum(a * b, fg::axes<1>)); }, {a, b});
}

RC_GTEST_PROP(EinsumLaws, OuterProductIsBroadcasting, ()) {
  const std::size_t m = extent(), n = extent();
  const Tensor a = random_tensor({m}), b = random_tensor({n});
  expect_same_gradients([&] { return Tensor(fg::einsum("i,j->ij", a, b)); },
                        [&] {
                          return Tensor(fg::reshape(a, {std::int64_t(m), 1}) * b);
                        },
                        {a, b});
}

RC_GTEST_PROP(EinsumLaws, BroadcastSumsAreReductions, ()) {
  const std::size_t batch = extent(), m = extent(), n = extent();
  const Tensor x = random_tensor({batch, m, n}), v = random_tensor({1, n});
  expect_same_gradients([&] { return Tensor(fg::einsum("...ij,ij->j", x, v)); },
                        [&] { return Tensor(fg::sum(x * v, fg::axes<0, 1>)); }, {x, v});
}

}  // namespace
