// laws/gradient_laws_test.cpp -- properties of the static layer's gradients over random inputs (RapidCheck).
// A failing property prints its counterexample and seed; rerun with RC_PARAMS="seed=<n>" to replay it.
#include <cmath>
#include <cstddef>
#include <span>
#include <utility>
#include <vector>

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>
#include <Eigen/Core>

#include <fusegrad/fusegrad.hpp>

#include "support/finite_difference.hpp"
#include "support/random_shapes.hpp"

namespace {

namespace fg = fusegrad;
using fg::Extents;
using fg::test::Array;
using fg::test::as_array;

using DynVector = fg::Var<double, fg::Shape<fg::dyn>>;

// n values uniform in [lo, hi] on a grid of 1/1000 (shrinks towards lo). resize(100) keeps them
// uniform over the whole range from the first case (inRange follows RapidCheck's size parameter).
rc::Gen<Eigen::ArrayXd> gen_reals(std::size_t n, double lo, double hi) {
  const int steps = static_cast<int>((hi - lo) * 1000);
  return rc::gen::map(rc::gen::container<std::vector<int>>(n, rc::gen::resize(100, rc::gen::inRange(0, steps + 1))),
                      [lo](const std::vector<int>& v) {
                        Eigen::ArrayXd out(static_cast<Eigen::Index>(v.size()));
                        for (std::size_t i = 0; i < v.size(); ++i) out[Eigen::Index(i)] = lo + v[i] / 1000.0;
                        return out;
                      });
}

// RC_ASSERT for arrays: |actual_i - expected_i| <= tolerance * max(1, max |expected|).
template <class A, class B>
void rc_assert_close(const A& actual_in, const B& expected_in, double tolerance) {
  const Array<double> actual = as_array(actual_in), expected = as_array(expected_in);
  RC_ASSERT(actual.size() == expected.size());
  const double scale = std::max(1.0, expected.size() ? expected.abs().maxCoeff() : 0.0);
  for (Eigen::Index i = 0; i < actual.size(); ++i) {
    if (!(std::abs(actual[i] - expected[i]) <= tolerance * scale))
      RC_FAIL("element " + std::to_string(i) + ": " + std::to_string(actual[i]) + " vs expected " +
              std::to_string(expected[i]));
  }
}

template <class X>
auto f_of(const X& x) {
  return fg::sum(fg::sin(x) * x);
}
template <class X>
auto g_of(const X& x) {
  return fg::sum(fg::exp(-x * x) + fg::tanh(x));
}

// Linearity: grad(a f + b g) = a grad f + b grad g for numbers a, b.
RC_GTEST_PROP(GradientLaws, GradientIsLinear, ()) {
  const auto n = *rc::gen::inRange<std::size_t>(1, 200);
  const Eigen::ArrayXd values = *gen_reals(n, -2, 2);
  const double a = *rc::gen::inRange(-300, 301) / 100.0, b = *rc::gen::inRange(-300, 301) / 100.0;
  DynVector x(values);
  const auto df = fg::grad(f_of(x), x);
  const auto dg = fg::grad(g_of(x), x);
  const auto [value, dcombined] = fg::value_and_grad(a * f_of(x) + b * g_of(x), x);
  RC_ASSERT(std::abs(value - (a * fg::eval(f_of(x)) + b * fg::eval(g_of(x)))) <= 1e-10 * (1 + std::abs(value)));
  rc_assert_close(dcombined, Eigen::ArrayXd(a * df + b * dg), 1e-12);
}

// The gradient of sum(x * c) is c, exactly, for a Const c of the same shape.
RC_GTEST_PROP(GradientLaws, GradientOfSumOfXTimesConstIsTheConst, ()) {
  const auto n = *rc::gen::inRange<std::size_t>(1, 300);
  DynVector x(*gen_reals(n, -5, 5));
  const Eigen::ArrayXd c_values = *gen_reals(n, -5, 5);
  fg::Const<double, fg::Shape<fg::dyn>> c(c_values);
  const auto dx = fg::grad(fg::sum(x * c), x);
  RC_ASSERT(dx.size() == Eigen::Index(n));
  RC_ASSERT((dx == c_values).all());
  const auto dx_left = fg::grad(fg::sum(c * x), x);
  RC_ASSERT((dx_left == c_values).all());
}

// The same law on a static shape of 70 elements: whole fused blocks and a partial one.
RC_GTEST_PROP(GradientLaws, GradientOfSumOfXTimesConstIsTheConstStatic, ()) {
  fg::Var<double, fg::Shape<2, 35>> x(Extents{2, 35});
  x.value() = *gen_reals(70, -5, 5);
  const Eigen::ArrayXd c_values = *gen_reals(70, -5, 5);
  fg::Const<double, fg::Shape<2, 35>> c(Extents{2, 35});
  c.value() = c_values;
  const auto dx = fg::grad(fg::sum(x * c), x);
  RC_ASSERT((dx == c_values).all());
}

// A random element-wise chain of depth 3: each level applies one op drawn at random (a one-hot
// weight picks it, so one expression type covers every chain), scaled by a random factor.
struct ChainLevel {
  int op;        // 0 sin, 1 tanh, 2 sigmoid, 3 log1p(y^2), 4 exp(-y^2), 5 y^2 / 2
  double scale;  // in [0.5, 1.5]
};
void showValue(const ChainLevel& l, std::ostream& os) { os << "{op " << l.op << ", scale " << l.scale << "}"; }

using Weight = fg::Const<double, fg::Shape<>>;
struct LevelWeights {
  Weight w[6] = {Weight(0.0), Weight(0.0), Weight(0.0), Weight(0.0), Weight(0.0), Weight(0.0)};
  explicit LevelWeights(const ChainLevel& l) { w[l.op].value()[0] = l.scale; }
};

template <class Y>
auto level(const Y& y, const LevelWeights& l) {
  return l.w[0] * fg::sin(y) + l.w[1] * fg::tanh(y) + l.w[2] * fg::sigmoid(y) + l.w[3] * fg::log1p(fg::square(y)) +
         l.w[4] * fg::exp(-fg::square(y)) + l.w[5] * (y * y * 0.5);
}

RC_GTEST_PROP(GradientLaws, RandomElementwiseChainMatchesFiniteDifferences, ()) {
  const auto n = *rc::gen::inRange<std::size_t>(1, 20);
  DynVector x(*gen_reals(n, -2, 2));
  const auto gen_level = rc::gen::build<ChainLevel>(
      rc::gen::set(&ChainLevel::op, rc::gen::resize(100, rc::gen::inRange(0, 6))),  // every op at every size
      rc::gen::set(&ChainLevel::scale, rc::gen::map(rc::gen::inRange(50, 151), [](int s) { return s / 100.0; })));
  const LevelWeights l1(*gen_level), l2(*gen_level), l3(*gen_level);
  const auto chain = level(level(level(x, l1), l2), l3);  // holds x and the weights by reference
  const auto [value, dx] = fg::value_and_grad(fg::sum(chain), x);
  const Array<double> fd = fg::test::central_difference(
                               x, [&] { return fg::eval(chain); }, Array<double>::Ones(Eigen::Index(n)), 6e-6)
                               .quotient;
  RC_ASSERT(std::abs(value - fg::eval(chain).sum()) <= 1e-12 * (1 + std::abs(value)));
  rc_assert_close(dx, fd, 1e-6);
}

// --- broadcasting: random pairs of dyn shapes --------------------------------------------------------

// Two shapes that broadcast together: each is `big` with 0..rank leading axes dropped and
// each remaining axis set to 1 with probability 1/2.
struct BroadcastPair {
  Extents a, b;
};
void showValue(const BroadcastPair& p, std::ostream& os) { os << p.a.to_string() << " with " << p.b.to_string(); }

// (gen::element and gen::elementOf draw uniformly; gen::inRange would follow RapidCheck's size
// parameter and give mostly all-ones shapes in early cases.)
rc::Gen<Extents> gen_shrunk(const Extents& big) {
  return rc::gen::exec([big] {
    std::vector<std::size_t> drop_counts(big.rank() + 1);
    for (std::size_t i = 0; i < drop_counts.size(); ++i) drop_counts[i] = i;
    const std::size_t dropped = *rc::gen::elementOf(drop_counts);
    std::vector<std::size_t> out;
    for (std::size_t i = dropped; i < big.rank(); ++i)
      out.push_back(*rc::gen::element(true, false) ? std::size_t{1} : big[i]);
    return Extents(std::span<const std::size_t>(out));
  });
}

rc::Gen<BroadcastPair> gen_broadcast_pair() {
  return rc::gen::exec([] {
    const Extents big = *fg::test::gen_extents(1, 4);
    return BroadcastPair{*gen_shrunk(big), *gen_shrunk(big)};
  });
}

// RankVar<R>: a Var of rank R with every extent dyn.
template <std::size_t R, class = std::make_index_sequence<R>>
struct all_dyn;
template <std::size_t R, std::size_t... I>
struct all_dyn<R, std::index_sequence<I...>> {
  using type = fg::Shape<(void(I), fg::dyn)...>;
};
template <std::size_t R>
using RankVar = fg::Var<double, typename all_dyn<R>::type>;

// Calls f(std::integral_constant<std::size_t, rank>) for a run-time rank in 0..4.
template <class F>
void with_rank(std::size_t rank, F&& f) {
  switch (rank) {
    case 0:
      return f(std::integral_constant<std::size_t, 0>{});
    case 1:
      return f(std::integral_constant<std::size_t, 1>{});
    case 2:
      return f(std::integral_constant<std::size_t, 2>{});
    case 3:
      return f(std::integral_constant<std::size_t, 3>{});
    case 4:
      return f(std::integral_constant<std::size_t, 4>{});
    default:
      RC_FAIL("rank out of range");
  }
}

// value_and_grad(sum(a * b)) gives each operand a gradient of exactly its own element count, equal
// to the full gradient (b, resp. a, broadcast to the result) summed back with reduce_broadcast;
// broadcast_to and reduce_broadcast are the independent reference (tested in tests/shape).
RC_GTEST_PROP(GradientLaws, BroadcastGradientsComeBackInEachOperandsShape, ()) {
  const BroadcastPair p = *gen_broadcast_pair();
  const Eigen::ArrayXd av = *fg::test::gen_values(p.a.size()), bv = *fg::test::gen_values(p.b.size());
  with_rank(p.a.rank(), [&](auto ra) {
    with_rank(p.b.rank(), [&](auto rb) {
      constexpr std::size_t rank_a = decltype(ra)::value;
      constexpr std::size_t rank_b = decltype(rb)::value;
      RankVar<rank_a> a(p.a);
      RankVar<rank_b> b(p.b);
      a.value() = av;
      b.value() = bv;
      const Extents out = fg::broadcast(p.a, p.b);
      const auto [value, da, db] = fg::value_and_grad(fg::sum(a * b), a, b);
      const Eigen::ArrayXd a_full = fg::broadcast_to(av, p.a, out), b_full = fg::broadcast_to(bv, p.b, out);
      RC_ASSERT(as_array(da).size() == Eigen::Index(p.a.size()));
      RC_ASSERT(as_array(db).size() == Eigen::Index(p.b.size()));
      RC_ASSERT(value == (a_full * b_full).sum());  // quarter-integers: exact
      rc_assert_close(da, fg::reduce_broadcast(b_full, out, p.a), 0);
      rc_assert_close(db, fg::reduce_broadcast(a_full, out, p.b), 0);
    });
  });
}

// vjp with a random upstream u equals the central differences of sum(u * f), through broadcasting,
// a matrix product and an axis reduction: f(x, w, c) = tanh(x w) * c - mean(x, axis 1, keepdims).
RC_GTEST_PROP(GradientLaws, VjpMatchesUpstreamWeightedFiniteDifferences, ()) {
  const auto n = *rc::gen::inRange<std::size_t>(1, 6), k = *rc::gen::inRange<std::size_t>(1, 6),
             m = *rc::gen::inRange<std::size_t>(1, 6);
  using Matrix = fg::Var<double, fg::Shape<fg::dyn, fg::dyn>>;
  Matrix x(Extents{n, k}), w(Extents{k, m}), c(Extents{1, m});
  x.value() = *gen_reals(n * k, -1, 1);
  w.value() = *gen_reals(k * m, -1, 1);
  c.value() = *gen_reals(m, -2, 2);
  const Eigen::ArrayXd u = *gen_reals(n * m, -1, 1);
  const auto f = fg::tanh(fg::matmul(x, w)) * c - fg::mean(x, fg::axes<1>, fg::keepdims);
  const auto [value, dx, dw, dc] = fg::vjp(f, u, x, w, c);
  const auto values = [&] { return fg::eval(f); };
  rc_assert_close(value, values(), 1e-15);
  rc_assert_close(dx, fg::test::central_difference(x, values, u, 6e-6).quotient, 1e-6);
  rc_assert_close(dw, fg::test::central_difference(w, values, u, 6e-6).quotient, 1e-6);
  rc_assert_close(dc, fg::test::central_difference(c, values, u, 6e-6).quotient, 1e-6);
}

}  // namespace
