// support/finite_difference.hpp -- central differences, and the harness that checks an expression's AD against them.
//
// expect_gradients_match_fd(make, vars...) builds make(vars...) once (it holds the vars by
// reference), then perturbs each element of each var in place and re-evaluates. It checks two
// reverse sweeps against the same differences:
//   value_and_grad(sum(make(vars...)), vars...)   upstream 1 everywhere (the fused reduction path)
//   vjp(make(vars...), u, vars...)                a random upstream u (the general path)
// Differences are taken element by element on the expression's VALUE ARRAY before it is contracted
// with the upstream, so elements that a perturbation does not touch cancel exactly; the error is
// then that of one element, not of a whole sum.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <random>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include <gtest/gtest.h>
#include <Eigen/Core>

#include <fusegrad/fusegrad.hpp>

namespace fusegrad::test {

template <class T>
using Array = Eigen::Array<T, Eigen::Dynamic, 1>;

/// Step and tolerances of the central-difference check for a scalar type. The step is near cbrt(epsilon), which
/// balances truncation (h^2) against rounding (epsilon / h); it is scaled by max(1, |x|). A gradient element passes
/// within rtol of the difference quotient, plus atol, plus what rounding the values the quotient was taken from can
/// account for (`difference::rounding`): each element is held to its own bound, however small the gradient, so that a
/// gradient of 1/150 is told from 0 and from -1/150 in float too.
template <class T>
struct fd_options {
  T step;
  double rtol, atol;
  double tolerance;  // the values' own check: within tolerance * max(1, the largest |value|)
};
template <class T>
constexpr fd_options<T> default_fd_options();
template <>
constexpr fd_options<double> default_fd_options<double>() {
  return {6e-6, 1e-6, 1e-9, 1e-6};
}
template <>
constexpr fd_options<float> default_fd_options<float>() {
  return {4e-3f, 5e-3, 1e-5, 2e-2};
}

/// A value from eval, vjp or grad as a flat array: scalars (rank-0 results and gradients of
/// Shape<> vars) become arrays of one element.
template <class V>
auto as_array(const V& v) {
  if constexpr (std::is_arithmetic_v<V>) {
    return Array<V>::Constant(1, v);
  } else {
    return Array<typename V::Scalar>(v);
  }
}

/// Central differences of sum(u * F(x)) with respect to every element of `var`, where F is
/// `values()` (an expression's value array) and `var` is written in place:
///   quotient_i = sum_k u_k (F_k(x + h e_i) - F_k(x - h e_i)) / (2 h),  h = step * max(1, |x_i|),
/// and the part of it that rounding the values F_k in T may explain: 16 epsilon(T) |u_k| (|F_k(x + h e_i)| +
/// |F_k(x - h e_i)|) / (2 h) summed over the values that moved (the others cancel exactly). The difference quotient
/// uses the step actually taken in T ((x+h) - (x-h) after rounding).
struct difference {
  Array<double> quotient, rounding;
};
template <class V, class Values>
difference central_difference(V& var, Values&& values, const Array<double>& upstream, typename V::value_type step) {
  using T = typename V::value_type;
  auto x = var.value();
  difference out{Array<double>(x.size()), Array<double>(x.size())};
  for (Eigen::Index i = 0; i < x.size(); ++i) {
    const T xi = x[i];
    const T h = step * std::max(T(1), std::abs(xi));
    const T up = xi + h, down = xi - h;
    x[i] = up;
    const Array<double> f_up = as_array(values()).template cast<double>();
    x[i] = down;
    const Array<double> f_down = as_array(values()).template cast<double>();
    x[i] = xi;
    const double width = double(up) - double(down);
    out.quotient[i] = (upstream * (f_up - f_down)).sum() / width;
    const Array<double> moved = (f_up != f_down).template cast<double>();
    out.rounding[i] = 16 * double(std::numeric_limits<T>::epsilon()) *
                      (moved * upstream.abs() * (f_up.abs() + f_down.abs())).sum() / width;
  }
  return out;
}

/// Checks a gradient against central differences element by element:
///   |actual_i - quotient_i| <= rtol |quotient_i| + atol + rounding_i.
template <class A, class T>
void expect_matches_difference(const A& actual_in, const difference& expected, const fd_options<T>& options,
                               const std::string& what) {
  const Array<double> actual = as_array(actual_in).template cast<double>();
  ASSERT_EQ(actual.size(), expected.quotient.size()) << what << ": wrong number of elements";
  for (Eigen::Index i = 0; i < actual.size(); ++i)
    EXPECT_NEAR(actual[i], expected.quotient[i],
                options.rtol * std::abs(expected.quotient[i]) + options.atol + expected.rounding[i])
        << what << ", element " << i;
}

/// Checks `actual` against `expected` element by element:
///   |actual_i - expected_i| <= tolerance * max(1, max_j |expected_j|).
template <class A>
void expect_near_all(const A& actual_in, const Array<double>& expected, double tolerance, const std::string& what) {
  const Array<double> actual = as_array(actual_in).template cast<double>();
  ASSERT_EQ(actual.size(), expected.size()) << what << ": wrong number of elements";
  const double scale = std::max(1.0, expected.size() ? expected.abs().maxCoeff() : 0.0);
  for (Eigen::Index i = 0; i < actual.size(); ++i)
    EXPECT_NEAR(actual[i], expected[i], tolerance * scale) << what << ", element " << i;
}

/// A fixed seed for the harness's random upstreams (tests print it through SCOPED_TRACE).
inline constexpr unsigned fd_seed = 20240601u;

/// Which reverse sweeps the harness runs. Element-wise ops read the same VJP through both, so
/// their per-op tests check the sum path only: each sweep is a few seconds of compile time per
/// expression type, and the vjp path is covered by tests/laws, tests/expr/vjp_test.cpp and the
/// materialised ops.
enum class fd_paths { sum_only, sum_and_vjp };

/// Checks the gradients of make(vars...) with respect to each var against central differences,
/// through value_and_grad of its sum and (by default) through vjp with a random upstream (see
/// the top of this file). `make` must hold the vars by reference (pass them on as lvalues), as
/// any expression built from named Vars does.
template <fd_paths Paths = fd_paths::sum_and_vjp, class T, class Make, class... Vars>
void expect_gradients_match_fd(const fd_options<T>& options, Make&& make, Vars&... vars) {
  SCOPED_TRACE("fd_seed = " + std::to_string(fd_seed));
  const auto f = make(vars...);
  const auto values = [&] { return fusegrad::eval(f); };
  const Array<double> value = as_array(values()).template cast<double>();
  const auto n = value.size();
  std::mt19937 rng(fd_seed);
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  Array<double> upstream(n);
  for (Eigen::Index k = 0; k < n; ++k) upstream[k] = dist(rng);
  const Array<double> ones = Array<double>::Ones(n);

  const auto total = fusegrad::sum(make(vars...));
  const auto all = fusegrad::value_and_grad(total, vars...);
  EXPECT_NEAR(double(std::get<0>(all)), value.sum(), options.tolerance * std::max(1.0, value.abs().sum()))
      << "value_and_grad(sum(f)): value";
  const auto by_vjp = [&] {
    if constexpr (Paths == fd_paths::sum_and_vjp) {
      auto out = fusegrad::vjp(f, Array<T>(upstream.template cast<T>()), vars...);
      expect_near_all(std::get<0>(out), value, options.tolerance, "vjp(f, u): value");
      return out;
    } else {
      return 0;
    }
  }();

  [&]<std::size_t... I>(std::index_sequence<I...>) {
    auto check = [&](auto index, auto& var) {
      constexpr std::size_t i = decltype(index)::value;
      const std::string name = "var #" + std::to_string(i);
      ASSERT_EQ(as_array(std::get<i + 1>(all)).size(), Eigen::Index(var.extents().size()))
          << name << ": the gradient is not shaped like the var";
      expect_matches_difference(std::get<i + 1>(all), central_difference(var, values, ones, options.step), options,
                                "value_and_grad(sum(f)), " + name);
      if constexpr (Paths == fd_paths::sum_and_vjp)
        expect_matches_difference(std::get<i + 1>(by_vjp), central_difference(var, values, upstream, options.step),
                                  options, "vjp(f, u), " + name);
    };
    (check(std::integral_constant<std::size_t, I>{}, vars), ...);
  }
  (std::index_sequence_for<Vars...>{});
}

/// As above, with the step and tolerance of the first var's scalar type.
template <fd_paths Paths = fd_paths::sum_and_vjp, class Make, class V, class... Vars>
  requires Variable<V>
void expect_gradients_match_fd(Make&& make, V& var, Vars&... vars) {
  using T = typename V::value_type;
  expect_gradients_match_fd<Paths>(default_fd_options<T>(), std::forward<Make>(make), var, vars...);
}

}  // namespace fusegrad::test
