// tape/one_op_node_test.cpp -- a node of one element-wise op (most of a taped graph): its value and gradients when
// the operands have the output's shape, when one is a single value, and when one is broadcast some other way.
#include <cmath>
#include <string_view>
#include <utility>

#include <gtest/gtest.h>

#include <fusegrad/fusegrad.hpp>

#include "support/expect_array.hpp"

namespace {

namespace fg = fusegrad;
using fg::Extents;
using fg::test::expect_array_near;

template <class T>
class OneOpNode : public ::testing::Test {
 protected:
  using Tensor = fg::BasicTensor<T>;
  static constexpr double tolerance = sizeof(T) == sizeof(float) ? 1e-6 : 1e-14;

  // a = [[1, 2, 3], [4, 5, 6]] and the gradient g = [[1, 0, 2], [0, 3, 1]] arriving at a (2, 3) result.
  Tensor a = Tensor::from({1, 2, 3, 4, 5, 6}, {2, 3}).requires_grad_();
  Tensor g = Tensor::from({1, 0, 2, 0, 3, 1}, {2, 3});
  Tensor s = Tensor::scalar(T(2)).requires_grad_();
};
using Scalars = ::testing::Types<double, float>;
TYPED_TEST_SUITE(OneOpNode, Scalars);

TYPED_TEST(OneOpNode, SameShapedOperands) {
  using Tensor = typename TestFixture::Tensor;
  Tensor b = Tensor::from({6, 5, 4, 3, 2, 1}, {2, 3}).requires_grad_();
  const Tensor y = this->a * b;
  EXPECT_EQ(y.grad_fn_name(), "MulBackward");
  expect_array_near(y.eigen(), {6, 10, 12, 12, 10, 6});
  y.backward(this->g);
  expect_array_near(this->a.grad().eigen(), {6, 0, 8, 0, 6, 1});  // g * b
  expect_array_near(b.grad().eigen(), {1, 0, 6, 0, 15, 6});       // g * a
}

// A scalar tensor's gradient is the sum of its VJP over the output.
TYPED_TEST(OneOpNode, AScalarTensorOnEitherSide) {
  using Tensor = typename TestFixture::Tensor;
  const double tol = TestFixture::tolerance;
  const Tensor times = this->a * this->s;
  expect_array_near(times.eigen(), {2, 4, 6, 8, 10, 12});
  times.backward(this->g);
  expect_array_near(this->a.grad().eigen(), {2, 0, 4, 0, 6, 2});  // g s
  expect_array_near(this->s.grad().eigen(), {28});                // sum(g a)

  this->a.zero_grad();
  this->s.zero_grad();
  const Tensor over = this->s / this->a;  // the VJP of b reads the output: -g y / b
  expect_array_near(over.eigen(), {2, 1, 2.0 / 3, 0.5, 0.4, 1.0 / 3}, tol);
  over.backward(this->g);
  expect_array_near(this->s.grad().eigen(), {1 + 2.0 / 3 + 3.0 / 5 + 1.0 / 6}, tol);           // sum(g / a)
  expect_array_near(this->a.grad().eigen(), {-2, 0, -4.0 / 9, 0, -6.0 / 25, -1.0 / 18}, tol);  // -g s / a^2

  this->a.zero_grad();
  this->s.zero_grad();
  const Tensor divided = this->a / this->s;
  divided.backward(this->g);
  expect_array_near(this->a.grad().eigen(), {0.5, 0, 1, 0, 1.5, 0.5}, tol);  // g / s
  expect_array_near(this->s.grad().eigen(), {-7}, tol);                      // -sum(g a) / s^2
}

TYPED_TEST(OneOpNode, ANumberOnEitherSide) {
  using Tensor = typename TestFixture::Tensor;
  const Tensor y = TypeParam(2) - this->a;
  EXPECT_EQ(y.grad_fn_name(), "SubBackward");
  expect_array_near(y.eigen(), {1, 0, -1, -2, -3, -4});
  y.backward(this->g);
  expect_array_near(this->a.grad().eigen(), {-1, 0, -2, 0, -3, -1});
  const Tensor z = this->a * TypeParam(3);
  z.backward(this->g);
  expect_array_near(this->a.grad().eigen(), {2, 0, 4, 0, 6, 2});  // -g + 3 g
}

// An operand broadcast along some axes but not all: its gradient is summed over those axes.
TYPED_TEST(OneOpNode, AnOperandBroadcastAlongSomeAxes) {
  using Tensor = typename TestFixture::Tensor;
  Tensor b = Tensor::from({10, 20, 30}, {3}).requires_grad_();
  const Tensor y = this->a + b;
  expect_array_near(y.eigen(), {11, 22, 33, 14, 25, 36});
  y.backward(this->g);
  expect_array_near(this->a.grad().eigen(), {1, 0, 2, 0, 3, 1});
  expect_array_near(b.grad().eigen(), {1, 3, 3});  // g summed over rows
}

// (3, 1) and (1, 4) make a (3, 4): both operands are broadcast.
TYPED_TEST(OneOpNode, BothOperandsBroadcast) {
  using Tensor = typename TestFixture::Tensor;
  const double tol = TestFixture::tolerance;
  Tensor u = Tensor::from({1, 2, 3}, {3, 1}).requires_grad_();
  Tensor v = Tensor::from({1, 2, 4, 8}, {1, 4}).requires_grad_();
  const Tensor h = Tensor::from({0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, {3, 4});  // the gradient arriving

  const Tensor product = u * v;
  EXPECT_EQ(product.shape(), (Extents{3, 4}));
  expect_array_near(product.eigen(), {1, 2, 4, 8, 2, 4, 8, 16, 3, 6, 12, 24});
  product.backward(h);
  expect_array_near(u.grad().eigen(), {34, 94, 154});     // sum_j h_ij v_j
  expect_array_near(v.grad().eigen(), {32, 38, 44, 50});  // sum_i h_ij u_i

  u.zero_grad();
  v.zero_grad();
  const Tensor quotient = u / v;  // the VJP of v reads the output
  expect_array_near(quotient.eigen(), {1, 0.5, 0.25, 0.125, 2, 1, 0.5, 0.25, 3, 1.5, 0.75, 0.375}, tol);
  quotient.backward(h);
  expect_array_near(u.grad().eigen(), {1.375, 8.875, 16.375}, tol);        // sum_j h_ij / v_j
  expect_array_near(v.grad().eigen(), {-32, -9.5, -2.75, -0.78125}, tol);  // -sum_i h_ij u_i / v_j^2
}

TYPED_TEST(OneOpNode, OneTensorOnBothSides) {
  using Tensor = typename TestFixture::Tensor;
  const Tensor y = this->a * this->a;
  y.backward(this->g);
  expect_array_near(this->a.grad().eigen(), {2, 0, 12, 0, 30, 12});  // 2 g a
}

TYPED_TEST(OneOpNode, ValuesWithoutRecording) {
  using Tensor = typename TestFixture::Tensor;
  const Tensor u = Tensor::from({1, 2, 3}, {3, 1});
  const Tensor w = Tensor::from({1, 2, 3, 4, 5, 6}, {1, 6}).requires_grad_();
  const fg::NoGradGuard no_grad;
  const Tensor y = u - w;
  EXPECT_FALSE(y.requires_grad());
  EXPECT_EQ(y.shape(), (Extents{3, 6}));
  expect_array_near(y.eigen(), {0, -1, -2, -3, -4, -5, 1, 0, -1, -2, -3, -4, 2, 1, 0, -1, -2, -3});
  const Tensor scaled = this->a * this->s;
  EXPECT_FALSE(scaled.requires_grad());
  expect_array_near(scaled.eigen(), {2, 4, 6, 8, 10, 12});
}

// An empty output: nothing to add, and the broadcast operand's gradient is zeros.
TYPED_TEST(OneOpNode, AnEmptyOutput) {
  using Tensor = typename TestFixture::Tensor;
  Tensor e = Tensor::zeros({0, 3}).requires_grad_();
  Tensor b = Tensor::from({1, 2, 3}, {3}).requires_grad_();
  const Tensor y = e * b;
  EXPECT_EQ(y.shape(), (Extents{0, 3}));
  y.backward(Tensor::zeros({0, 3}));
  expect_array_near(b.grad().eigen(), {0, 0, 0});
  EXPECT_EQ(e.grad().numel(), 0);
}

// exp, counting how often its values are computed.
struct counted_exp_op {
  static constexpr std::string_view name = "counted_exp";
  static constexpr std::string_view backward_name = "CountedExpBackward";
  static constexpr fg::vjp_needs needs = fg::vjp_needs::output;
  static inline int evaluations = 0;
  static auto value(const auto& x) {
    ++evaluations;
    return x.exp();
  }
  static auto vjp(const auto& dy, const auto& /*x*/, const auto& y) { return dy * y; }
};
static_assert(fg::UnaryOp<counted_exp_op>);
constexpr auto counted_exp(fg::Differentiable auto&& x) {
  return fg::detail::make_unary<counted_exp_op>(std::forward<decltype(x)>(x));
}

// 40 values: more than a recorded block holds beside its node, so they live on the heap of their own.
Eigen::ArrayXd forty_inputs() { return Eigen::ArrayXd::LinSpaced(40, -1.0, 1.5); }

// A VJP that reads the op's values (exp's: dx = dy * exp(x)) reads those the node computed, once. Here only the next
// node holds exp's output, and that node is released before exp's runs: the values outlive the tensor.
TYPED_TEST(OneOpNode, AVjpReadsTheOpsValuesAfterTheirTensorIsGone) {
  using Tensor = typename TestFixture::Tensor;
  const Eigen::ArrayXd xs = forty_inputs();
  Tensor x = Tensor::from(xs.cast<TypeParam>().eval()).requires_grad_();
  counted_exp_op::evaluations = 0;
  Tensor y = counted_exp(x);
  const Tensor z = y * x;
  y = Tensor();
  z.backward(Tensor::ones({40}));
  EXPECT_EQ(counted_exp_op::evaluations, 1);
  expect_array_near(x.grad().eigen(), (xs.exp() * (xs + 1)).eval(), 10 * TestFixture::tolerance);  // d(x e^x)
}

// Values written in place after recording are not the op's, whose VJP backward takes: it computes them again from
// its operands.
TYPED_TEST(OneOpNode, AVjpOfAnOutputWrittenInPlaceComputesTheValuesAgain) {
  using Tensor = typename TestFixture::Tensor;
  const Eigen::ArrayXd xs = forty_inputs();
  Tensor x = Tensor::from(xs.cast<TypeParam>().eval()).requires_grad_();
  counted_exp_op::evaluations = 0;
  Tensor y = counted_exp(x);
  Tensor b = Tensor::from({6, 5, 4, 3, 2, 1}, {2, 3}).requires_grad_();
  Tensor q = this->a / b;  // the VJP of b reads the quotient: -g q / b
  {
    const fg::NoGradGuard no_grad;  // how a recorded tensor may be written in place
    y.fill_(TypeParam(5));
    q.fill_(TypeParam(5));
  }
  y.backward(Tensor::ones({40}));
  EXPECT_EQ(counted_exp_op::evaluations, 2);
  expect_array_near(x.grad().eigen(), xs.exp().eval(), 10 * TestFixture::tolerance);
  q.backward(this->g);
  const double tol = TestFixture::tolerance;
  expect_array_near(this->a.grad().eigen(), {1.0 / 6, 0, 0.5, 0, 1.5, 1}, tol);       // g / b
  expect_array_near(b.grad().eigen(), {-1.0 / 36, 0, -6.0 / 16, 0, -3.75, -6}, tol);  // -g a / b^2
}

// sin, counting what it computes: value() alone, value_and_slope() (its value with its slope, cos, from one
// evaluation, as sin_op gives them where xsimd's sine and cosine share their argument reduction) and the cosine in
// its VJP.
struct counted_sin_op {
  static constexpr std::string_view name = "counted_sin";
  static constexpr std::string_view backward_name = "CountedSinBackward";
  static constexpr fg::vjp_needs needs = fg::vjp_needs::input;
  static inline int values = 0, values_with_slope = 0, cosines = 0;
  static auto value(const auto& x) {
    ++values;
    return x.sin();
  }
  static auto vjp(const auto& dy, const auto& x, const auto& /*y*/) {
    ++cosines;
    return dy * x.cos();
  }
  template <class T>
  static constexpr bool value_with_slope = true;
  static void value_and_slope(const auto& x, auto& y, auto& slope) {
    ++values_with_slope;
    y = x.sin();
    slope = x.cos();
  }
  static void reset() { values = values_with_slope = cosines = 0; }
};
static_assert(fg::UnaryOp<counted_sin_op> && fg::TakesValueWithSlope<counted_sin_op, double>);
constexpr auto counted_sin(fg::Differentiable auto&& x) {
  return fg::detail::make_unary<counted_sin_op>(std::forward<decltype(x)>(x));
}

// An op that gives its value with its slope computes both when it is recorded, and its VJP multiplies by the slope:
// the cosine is not computed again, by a first backward or by a second one over the retained graph.
TYPED_TEST(OneOpNode, AVjpMultipliesByTheSlopeComputedWithTheValue) {
  using Tensor = typename TestFixture::Tensor;
  const Eigen::ArrayXd xs = forty_inputs();
  Tensor x = Tensor::from(xs.cast<TypeParam>().eval()).requires_grad_();
  counted_sin_op::reset();
  const Tensor y = counted_sin(x);
  EXPECT_EQ(counted_sin_op::values_with_slope, 1);
  EXPECT_EQ(counted_sin_op::values, 0);
  expect_array_near(y.eigen(), xs.sin().eval(), TestFixture::tolerance);
  const Eigen::ArrayXd upstream = Eigen::ArrayXd::LinSpaced(40, 2.0, -3.0);
  const Tensor g = Tensor::from(upstream.cast<TypeParam>().eval());
  y.backward(g, {.retain_graph = true});
  expect_array_near(x.grad().eigen(), (upstream * xs.cos()).eval(), 10 * TestFixture::tolerance);
  y.backward(g);
  expect_array_near(x.grad().eigen(), (2 * upstream * xs.cos()).eval(), 10 * TestFixture::tolerance);
  EXPECT_EQ(counted_sin_op::cosines, 0);
  EXPECT_EQ(counted_sin_op::values_with_slope, 1);
}

// One value's slope is computed again in backward, in a register, as one value's output is.
TYPED_TEST(OneOpNode, AOneValueNodeComputesItsSlopeInBackward) {
  using Tensor = typename TestFixture::Tensor;
  Tensor x = Tensor::scalar(TypeParam(0.5)).requires_grad_();
  counted_sin_op::reset();
  const Tensor y = counted_sin(x);
  EXPECT_EQ(counted_sin_op::values_with_slope, 0);
  y.backward();
  EXPECT_EQ(counted_sin_op::cosines, 1);
  expect_array_near(x.grad().eigen(), {std::cos(0.5)}, TestFixture::tolerance);
}

// The kept slope belongs to the operand's values at recording, and it is never read for others: an operand written in
// place since has the backward refused (as for every VJP that reads its operand), and no gradient changes.
TYPED_TEST(OneOpNode, AnOperandWrittenInPlaceAfterItsSlopeWasKeptRefusesTheBackward) {
  using Tensor = typename TestFixture::Tensor;
  const Eigen::ArrayXd xs = forty_inputs();
  Tensor x = Tensor::from(xs.cast<TypeParam>().eval()).requires_grad_();
  const Tensor y = counted_sin(x);
  {
    const fg::NoGradGuard no_grad;
    x.fill_(TypeParam(1));
  }
  EXPECT_THROW(y.backward(Tensor::ones({40})), fg::graph_error);
  EXPECT_FALSE(x.grad().defined());
}

// sin and cos as the library gives them (for double with AVX and wider, their slope kept with their value): values and
// gradients against the C library's, over values beyond 20 pi too.
TYPED_TEST(OneOpNode, SinAndCosValuesAndGradientsMatchTheCLibrary) {
  using Tensor = typename TestFixture::Tensor;
  const Eigen::ArrayXd xs = Eigen::ArrayXd::LinSpaced(40, -70.0, 70.0);
  const Eigen::ArrayXd upstream = Eigen::ArrayXd::LinSpaced(40, 1.0, -2.0);
  const Tensor g = Tensor::from(upstream.cast<TypeParam>().eval());
  const Eigen::ArrayXd at = xs.cast<TypeParam>().template cast<double>();  // the inputs as T holds them
  const double tol = sizeof(TypeParam) == sizeof(float) ? 1e-5 : 1e-14;

  Tensor x = Tensor::from(xs.cast<TypeParam>().eval()).requires_grad_();
  const Tensor s = fg::sin(x);
  expect_array_near(s.eigen(), at.sin().eval(), tol);
  s.backward(g);
  expect_array_near(x.grad().eigen(), (upstream * at.cos()).eval(), tol);

  x.zero_grad();
  const Tensor c = fg::cos(x);
  expect_array_near(c.eigen(), at.cos().eval(), tol);
  c.backward(g);
  expect_array_near(x.grad().eigen(), (-upstream * at.sin()).eval(), tol);
}

// The first gradient to reach an operand is written to it (its memory held nothing), the next ones are added: t's
// from two recorded consumers, a's from two backward passes.
TYPED_TEST(OneOpNode, TheFirstGradientIsWrittenAndTheOthersAdded) {
  using Tensor = typename TestFixture::Tensor;
  for (int pass = 1; pass <= 2; ++pass) {
    const Tensor t = this->a * this->a;
    const Tensor w = fg::taped(t * TypeParam(3) + t * TypeParam(5));  // 8 a^2, three one-op nodes
    w.backward(this->g);
    expect_array_near(this->a.grad().eigen(), {16.0 * pass, 0, 96.0 * pass, 0, 240.0 * pass, 96.0 * pass});  // 16 g a
  }
}

}  // namespace
