// ops/domain_edges_test.cpp -- ops at the edges of their domains: the IEEE results PyTorch gives, forward and
// backward, in both layers; a scalar's one axis; and DetectAnomalyGuard naming the op where a NaN or infinity first
// appears.
#include <cmath>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include <gtest/gtest.h>
#include <Eigen/Core>

#include <fusegrad/fusegrad.hpp>

#include "support/expect_error.hpp"

namespace {

namespace fg = fusegrad;

constexpr double inf = std::numeric_limits<double>::infinity();
constexpr double nan = std::numeric_limits<double>::quiet_NaN();

// Equal, or both NaN.
void expect_ieee_eq(double actual, double expected, const std::string& what) {
  if (std::isnan(expected))
    EXPECT_TRUE(std::isnan(actual)) << what << ": " << actual << ", expected NaN";
  else
    EXPECT_EQ(actual, expected) << what;
}

struct UnaryEdge {
  double x, value, gradient;
};

// The value of op at each edge and d op / dx there, with upstream gradient 1: through the static
// layer (vjp of a Var), a tape node (fg::Tensor) and one node per op (fg::taped).
template <class Op>
void check_unary_edges(const char* name, Op op, const std::vector<UnaryEdge>& edges) {
  const auto n = static_cast<std::size_t>(edges.size());
  Eigen::ArrayXd xs(static_cast<Eigen::Index>(n));
  for (std::size_t k = 0; k < n; ++k) xs[static_cast<Eigen::Index>(k)] = edges[k].x;
  fg::Var<double, fg::Shape<fg::dyn>> x(xs);
  const auto [values, dx] = fg::vjp(op(x), Eigen::ArrayXd::Ones(xs.size()), x);
  fg::Tensor t = fg::Tensor::from(xs).requires_grad_();
  const fg::Tensor fused = op(t);
  fused.backward(fg::Tensor::ones_like(fused));
  const Eigen::ArrayXd dt_fused = t.grad().eigen();
  t.zero_grad();
  const fg::Tensor taped = fg::taped(op(t));
  taped.backward(fg::Tensor::ones_like(taped));
  for (std::size_t k = 0; k < n; ++k) {
    const auto i = static_cast<Eigen::Index>(k);
    const std::string at = std::string(name) + "(" + std::to_string(edges[k].x) + ")";
    expect_ieee_eq(values[i], edges[k].value, at + ", static value");
    expect_ieee_eq(dx[i], edges[k].gradient, at + ", static gradient");
    expect_ieee_eq(fused.data()[k], edges[k].value, at + ", tape value");
    expect_ieee_eq(dt_fused[i], edges[k].gradient, at + ", tape gradient");
    expect_ieee_eq(taped.data()[k], edges[k].value, at + ", taped value");
    expect_ieee_eq(t.grad().data()[k], edges[k].gradient, at + ", taped gradient");
  }
}

TEST(DomainEdges, LogSqrtReciprocalAtZeroAndBelow) {
  // d log = 1/x; d sqrt = 1/(2 sqrt x); d (1/x) = -1/x^2
  check_unary_edges("log", [](const auto& x) { return fg::log(x); }, {{0.0, -inf, inf}, {-1.0, nan, -1.0}});
  check_unary_edges("sqrt", [](const auto& x) { return fg::sqrt(x); }, {{0.0, 0.0, inf}, {-1.0, nan, nan}});
  check_unary_edges("reciprocal", [](const auto& x) { return fg::reciprocal(x); }, {{0.0, inf, -inf}});
}

TEST(DomainEdges, SaturatingFunctionsAtPlusMinus1000) {
  // tanh' = 1 - y^2 and sigmoid' = y (1 - y) are exactly 0 once y is; exp' = exp.
  check_unary_edges("tanh", [](const auto& x) { return fg::tanh(x); }, {{1000.0, 1.0, 0.0}, {-1000.0, -1.0, 0.0}});
  check_unary_edges("sigmoid", [](const auto& x) { return fg::sigmoid(x); }, {{1000.0, 1.0, 0.0}, {-1000.0, 0.0, 0.0}});
  check_unary_edges("exp", [](const auto& x) { return fg::exp(x); }, {{1000.0, inf, inf}});
}

// Slopes at the edges where they are tiny or infinite. Below x = -709.8, softplus(x) = sigmoid(x) = exp(x) is a
// subnormal number, which PyTorch's softplus gradient keeps (1 / (1 + exp(-x)) would overflow to 0); log_sigmoid is
// softplus mirrored. log1mexp's slope at 0 is the limit from below, -inf, at either zero; at -720 its value and slope
// are both -exp(-720), subnormal.
TEST(DomainEdges, SlopesThatAreSubnormalOrInfinite) {
  const double tiny = std::exp(-720.0);  // 2.03e-313
  ASSERT_GT(tiny, 0.0);
  check_unary_edges("softplus", [](const auto& x) { return fg::softplus(x); },
                    {{-720.0, tiny, tiny}, {1000.0, 1000.0, 1.0}});
  check_unary_edges("log_sigmoid", [](const auto& x) { return fg::log_sigmoid(x); },
                    {{720.0, -tiny, tiny}, {-1000.0, -1000.0, 1.0}});
  check_unary_edges("log1mexp", [](const auto& x) { return fg::log1mexp(x); },
                    {{0.0, -inf, -inf}, {-0.0, -inf, -inf}, {-720.0, -tiny, -tiny}});
}

// exp(-1000) is 0 in IEEE arithmetic. Eigen's vectorised exp clamps its argument near the
// smallest normal result, so where values go through its packet path the result is that bound,
// about 5.6e-309, instead; the scalar path gives 0. Either way it is no more than the bound, and
// its gradient (the same value) no more either: never a NaN or a visible error.
TEST(DomainEdges, ExpOfMinus1000IsZeroOrEigensSmallestNormal) {
  fg::Var<double, fg::Shape<fg::dyn>> x(Eigen::ArrayXd::Constant(9, -1000.0));  // a packet and a tail
  const auto [values, dx] = fg::vjp(fg::exp(x), Eigen::ArrayXd::Ones(9), x);
  fg::Tensor t = fg::Tensor::full({9}, -1000.0).requires_grad_();
  const fg::Tensor taped = fg::taped(fg::exp(t));
  taped.backward(fg::Tensor::ones({9}));
  for (Eigen::Index i = 0; i < 9; ++i) {
    for (double v : {values[i], dx[i], taped.data()[i], t.grad().data()[i]}) {
      EXPECT_GE(v, 0.0);
      EXPECT_LE(v, 1e-308);
    }
  }
}

// At NaN too: PyTorch's abs' is sgn(NaN) = 0, and its relu' masks only where x <= 0, which NaN is not.
TEST(DomainEdges, KinksTakePyTorchsSubgradient) {
  check_unary_edges("abs", [](const auto& x) { return fg::abs(x); }, {{0.0, 0.0, 0.0}, {nan, nan, 0.0}});
  check_unary_edges("relu", [](const auto& x) { return fg::relu(x); }, {{0.0, 0.0, 0.0}, {nan, nan, 1.0}});
}

// expm1 up to where it overflows, 709.78, and exp: finite, with the gradient exp(x).
TEST(DomainEdges, Expm1AndExpUpToTheirOverflow) {
  const double below = 709.78, above = 709.79;
  check_unary_edges(
      "expm1", [](const auto& x) { return fg::expm1(x); },
      {{709.5, std::expm1(709.5), std::exp(709.5)}, {below, std::expm1(below), std::exp(below)}, {above, inf, inf}});
  check_unary_edges("exp", [](const auto& x) { return fg::exp(x); }, {{below, std::exp(below), std::exp(below)}});
}

// a / b at b = 0: d/da = 1/b, d/db = -a/b^2 (NaN where a = 0 too).
TEST(DomainEdges, DivisionByZero) {
  fg::Var<double, fg::Shape<2>> a{1.0, 0.0}, b{0.0, 0.0};
  const auto [values, da, db] = fg::vjp(a / b, Eigen::Array2d::Ones(), a, b);
  fg::Tensor ta = fg::Tensor::from({1.0, 0.0}, {2}).requires_grad_(), tb = fg::Tensor::zeros({2}).requires_grad_();
  const fg::Tensor q = fg::taped(ta / tb);
  q.backward(fg::Tensor::ones({2}));
  const double value[] = {inf, nan}, grad_a[] = {inf, inf}, grad_b[] = {-inf, nan};
  for (int k = 0; k < 2; ++k) {
    const std::string at = "element " + std::to_string(k);
    expect_ieee_eq(values[k], value[k], at + ", static value");
    expect_ieee_eq(da[k], grad_a[k], at + ", static d/da");
    expect_ieee_eq(db[k], grad_b[k], at + ", static d/db");
    expect_ieee_eq(q.data()[k], value[k], at + ", taped value");
    expect_ieee_eq(ta.grad().data()[k], grad_a[k], at + ", taped d/da");
    expect_ieee_eq(tb.grad().data()[k], grad_b[k], at + ", taped d/db");
  }
}

// Dividing by a number divides, as PyTorch's CPU kernels do: exact where 1/b overflows (b = 1e-310), and to the last
// bit elsewhere (49 / 49 is 1). PyTorch 1.13's values and gradients.
TEST(DomainEdges, DivisionByANumberDivides) {
  check_unary_edges("x / 1e-310", [](const auto& x) { return x / 1e-310; },
                    {{0.0, 0.0, 1.0 / 1e-310}, {1e-300, 1e-300 / 1e-310, 1.0 / 1e-310}, {1e-310, 1.0, 1.0 / 1e-310}});
  check_unary_edges("x / 49", [](const auto& x) { return x / 49.0; }, {{49.0, 1.0, 1.0 / 49.0}});
}

// A one-value Var divisor multiplies by its reciprocal, but its gradient, -(sum dy a) / b^2, comes out where b^2
// alone would overflow or vanish (PyTorch 1.13: -2e120 and -2e-150).
TEST(DomainEdges, AScalarDivisorsGradientAtExtremeScales) {
  fg::Var<double, fg::Shape<2>> tiny{1e-200, 1e-200}, huge{1e250, 1e250};
  fg::Var<double, fg::Shape<>> small_b(1e-160), large_b(1e200);
  const auto [v1, da1, db1] = fg::value_and_grad(fg::sum(tiny / small_b), tiny, small_b);
  EXPECT_NEAR(db1, -2e120, 1e106);
  EXPECT_NEAR(v1, 2e-40, 1e-54);
  const auto [v2, da2, db2] = fg::value_and_grad(fg::sum(huge / large_b), huge, large_b);
  EXPECT_NEAR(db2, -2e-150, 1e-164);
  EXPECT_NEAR(v2, 2e50, 1e36);
}

// A mean divides its sum by the count, as PyTorch's does: the mean of 49 ones is 1, not 1 - 2^-53, in every layer
// and over chosen axes; its gradient is 1 / 49 each.
TEST(DomainEdges, AMeanDividesByTheCount) {
  const Eigen::ArrayXd ones = Eigen::ArrayXd::Ones(49), threes = Eigen::ArrayXd::Constant(49, 3.0);
  fg::Var<double, fg::Shape<fg::dyn>> x(ones);
  const auto [value, dx] = fg::value_and_grad(fg::mean(x), x);
  EXPECT_EQ(value, 1.0);
  EXPECT_EQ(dx[0], 1.0 / 49.0);
  EXPECT_EQ(fg::Tensor(fg::mean(fg::Tensor::from(threes))).item(), 3.0);
  EXPECT_EQ(fg::Tensor(fg::mean(fg::Tensor::from(threes), fg::axes<0>)).item(), 3.0);
  EXPECT_EQ(fg::Tensor(fg::sum(fg::Tensor::from(threes)) / 49.0).item(), 3.0);
  fg::Tensor t = fg::Tensor::from(threes).requires_grad_();
  fg::taped(fg::mean(t, fg::axes<0>)).backward();
  EXPECT_EQ(t.grad().data()[48], 1.0 / 49.0);
  // An upstream of 0.1 divided by 49, not times 1 / 49 (which differs in the last bit), over all axes and one.
  const auto [values, dx_by_vjp] = fg::vjp(fg::mean(x), 0.1, x);
  EXPECT_EQ(values(0), 1.0);
  EXPECT_EQ(dx_by_vjp[0], 0.1 / 49.0);
  fg::Tensor u = fg::Tensor::from(threes).requires_grad_();
  fg::taped(fg::mean(u, fg::axes<0>)).backward(fg::Tensor::scalar(0.1));
  EXPECT_EQ(u.grad().data()[0], 0.1 / 49.0);
  fg::Tensor w = fg::Tensor::from(threes).requires_grad_();
  fg::Tensor(fg::mean(w)).backward(fg::Tensor::scalar(0.1));
  EXPECT_EQ(w.grad().data()[0], 0.1 / 49.0);
  ASSERT_NE(0.1 / 49.0, 0.1 * (1.0 / 49.0));  // the two ways differ here
}

// sqrt is correctly rounded, with IEEE results at +inf, subnormals and -0 (PyTorch 1.13's), in a register as alone:
// Eigen's float registers on x86, and its double registers with AVX-512, compute a reciprocal square root and Newton
// steps instead.
template <class T>
void expect_sqrt_correctly_rounded(T subnormal) {
  using array = Eigen::Array<T, Eigen::Dynamic, 1>;
  const T inf = std::numeric_limits<T>::infinity();
  fg::Var<T, fg::Shape<fg::dyn>> x(array{{T(4), inf, subnormal, T(-0.0), T(2), subnormal, inf, T(4), T(3)}});
  const auto [y, dx] = fg::vjp(fg::sqrt(x), array::Ones(9).eval(), x);
  for (Eigen::Index i = 0; i < 9; ++i) {
    const T v = x.value()[i];
    const std::string at = "sqrt(" + std::to_string(v) + "), element " + std::to_string(i);
    EXPECT_EQ(y[i], std::sqrt(v)) << at;
    EXPECT_EQ(std::signbit(y[i]), std::signbit(std::sqrt(v))) << at;
    EXPECT_EQ(dx[i], T(0.5) / std::sqrt(v)) << at;
  }
  const array many = array::LinSpaced(4099, T(1e-3), T(1e3));
  const fg::BasicTensor<T> roots = fg::sqrt(fg::BasicTensor<T>::from(many));
  int wrong = 0;
  for (Eigen::Index i = 0; i < many.size(); ++i) wrong += roots.data()[i] != std::sqrt(many[i]);
  EXPECT_EQ(wrong, 0);
}

TEST(DomainEdges, SqrtIsCorrectlyRounded) {
  expect_sqrt_correctly_rounded<float>(1e-40f);
  expect_sqrt_correctly_rounded<double>(1e-310);
}

// PyTorch gives a scalar one axis, 0 or -1, of extent 1, for the ops that reduce or index along an axis
// (`torch.tensor(3.).sum(0)` is 3, `torch.gather(torch.tensor(3.), 0, torch.tensor(0))` is 3). Each op below, at x = 3,
// with PyTorch 1.13's value and gradient; the result is a scalar again.
struct ScalarAxisCase {
  const char* name;
  fg::Tensor (*op)(const fg::Tensor&);
  double value, gradient;
};

TEST(DomainEdges, AScalarsAxisZeroIsOneValue) {
  const ScalarAxisCase cases[] = {
      {"sum", [](const fg::Tensor& x) { return fg::Tensor(fg::sum(x, fg::axes<0>)); }, 3.0, 1.0},
      {"sum keepdims", [](const fg::Tensor& x) { return fg::Tensor(fg::sum(x, fg::axes<0>, fg::keepdims)); }, 3.0, 1.0},
      {"mean", [](const fg::Tensor& x) { return fg::Tensor(fg::mean(x, fg::axes<0>)); }, 3.0, 1.0},
      {"prod", [](const fg::Tensor& x) { return fg::Tensor(fg::prod(x, fg::axes<0>)); }, 3.0, 1.0},
      {"max", [](const fg::Tensor& x) { return fg::Tensor(fg::max(x, fg::axes<0>)); }, 3.0, 1.0},
      {"min", [](const fg::Tensor& x) { return fg::Tensor(fg::min(x, fg::axes<0>)); }, 3.0, 1.0},
      {"logsumexp", [](const fg::Tensor& x) { return fg::Tensor(fg::logsumexp(x, fg::axes<0>)); }, 3.0, 1.0},
      {"softmax", [](const fg::Tensor& x) { return fg::Tensor(fg::softmax(x, fg::axes<0>)); }, 1.0, 0.0},
      {"log_softmax", [](const fg::Tensor& x) { return fg::Tensor(fg::log_softmax(x, fg::axes<0>)); }, 0.0, 0.0},
      {"cumsum", [](const fg::Tensor& x) { return fg::Tensor(fg::cumsum(x, fg::axes<0>)); }, 3.0, 1.0},
      {"variance", [](const fg::Tensor& x) { return fg::Tensor(fg::variance(x, fg::axes<0>)); }, nan, nan},
      {"argmax + x", [](const fg::Tensor& x) { return fg::Tensor(fg::argmax(x, fg::axes<0>) + x); }, 3.0, 1.0},
      {"squeeze, axis 0", [](const fg::Tensor& x) { return fg::Tensor(fg::squeeze(x, 0)); }, 3.0, 1.0},
      {"squeeze, axes<0>", [](const fg::Tensor& x) { return fg::Tensor(fg::squeeze(x, fg::axes<0>)); }, 3.0, 1.0},
      {"gather", [](const fg::Tensor& x) { return fg::Tensor(fg::gather(x, 0, fg::Indices({0}, fg::Extents{}))); }, 3.0,
       1.0},
      {"gather, axis -1, index -1",
       [](const fg::Tensor& x) { return fg::Tensor(fg::gather(x, -1, fg::Indices({-1}, fg::Extents{}))); }, 3.0, 1.0},
  };
  for (const ScalarAxisCase& c : cases) {
    for (const bool taped : {false, true}) {
      const std::string at = std::string(c.name) + (taped ? ", one node per op" : ", one node");
      fg::Tensor x = fg::Tensor::scalar(3.0).requires_grad_();
      const fg::Tensor y = taped ? fg::taped(c.op(x)) : c.op(x);
      EXPECT_EQ(y.extents(), fg::Extents{}) << at;
      expect_ieee_eq(y.item(), c.value, at + ", value");
      y.backward();
      expect_ieee_eq(x.grad().item(), c.gradient, at + ", gradient");
    }
  }
  // The static layer: the same rule at compile time, a Shape<> result.
  fg::Var<double, fg::Shape<>> v(3.0);
  const auto f = fg::log_softmax(v, fg::axes<0>) + fg::cumsum(v, fg::axes<0>) + fg::max(v, fg::axes<0>) +
                 3.0 * fg::sum(v * v, fg::axes<0>, fg::keepdims) + fg::squeeze(v, fg::axes<0>);
  static_assert(std::is_same_v<std::remove_cvref_t<decltype(f)>::static_shape, fg::Shape<>>);
  const auto [value, dv] = fg::value_and_grad(f, v);
  EXPECT_EQ(value, 0.0 + 3.0 + 3.0 + 27.0 + 3.0);
  EXPECT_EQ(dv, 0.0 + 1.0 + 1.0 + 18.0 + 1.0);
  // A scalar has no axis 1, and its axis 0 no index 1.
  const fg::Tensor s = fg::Tensor::scalar(3.0);
  fusegrad::test::expect_error<fg::shape_error>([&] { (void)fg::Tensor(fg::sum(s, fg::axes<1>)); },
                                                {"fusegrad::sum", "axis 1", "shape ()"});
  fusegrad::test::expect_error<fg::shape_error>(
      [&] { (void)fg::Tensor(fg::gather(s, 1, fg::Indices({0}, fg::Extents{}))); },
      {"fusegrad::gather", "axis 1", "(axes -1 to 0)"});
  fusegrad::test::expect_error<fg::shape_error>(
      [&] { (void)fg::Tensor(fg::gather(s, 0, fg::Indices({1}, fg::Extents{}))); },
      {"fusegrad::gather", "index 1", "extent 1"});
}

// Under DetectAnomalyGuard the first op whose value is not finite is named, forward; and a
// backward that produces one names the op whose gradient it is.
TEST(DomainEdges, AnomalyDetectionNamesTheOpWhereANanAppears) {
  fg::DetectAnomalyGuard guard;
  fg::Tensor x = fg::Tensor::from({-1.0, 4.0}, {2}).requires_grad_();
  fusegrad::test::expect_error<fg::value_error>([&] { (void)fg::taped(fg::sqrt(x) * 2.0); },
                                                {"SqrtBackward", "NaN or infinity", "forward"});
  fg::Tensor z = fg::Tensor::from({0.0, 4.0}, {2}).requires_grad_();
  const fg::Tensor s = fg::taped(fg::sum(fg::sqrt(z)));  // sqrt(0) = 0 is finite; its gradient is not
  fusegrad::test::expect_error<fg::value_error>([&] { s.backward(); }, {"SqrtBackward", "backward"});
  EXPECT_FALSE(z.grad().defined());  // the failed backward changed no gradient
}

}  // namespace
