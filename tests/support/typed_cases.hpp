// support/typed_cases.hpp -- the typed-test list of the op tests (float and double, dyn and static shapes), and vars
// filled at random.
#pragma once

#include <algorithm>
#include <cstddef>
#include <initializer_list>
#include <random>
#include <string>
#include <type_traits>

#include <gtest/gtest.h>

#include <fusegrad/fusegrad.hpp>

#include "support/gradcheck_layers.hpp"

namespace fusegrad::test {

/// One typed-test case: a scalar type, and whether shapes are declared static or dyn.
/// `var<3, 1>` is Var<T, Shape<3, 1>> in a static case and Var<T, Shape<dyn, dyn>> in a dyn
/// case; both are built by make_var<3, 1>() with run-time extents (3,1). Shape<> is the same
/// in both (a scalar has no extent to make dynamic).
template <class T, bool Dynamic>
struct Case {
  using value_type = T;
  static constexpr bool dynamic = Dynamic;

  template <std::size_t... E>
  using declared_shape = std::conditional_t<Dynamic, Shape<(void(E), dyn)...>, Shape<E...>>;
  template <std::size_t... E>
  using var = Var<T, declared_shape<E...>>;
  template <std::size_t... E>
  using constant = Const<T, declared_shape<E...>>;

  /// A Var of extents (E...), every value drawn uniformly from [lo, hi).
  template <std::size_t... E, class Rng>
  static var<E...> make_var(Rng& rng, double lo, double hi) {
    var<E...> v(Extents{E...});
    std::uniform_real_distribution<double> dist(lo, hi);
    for (Eigen::Index i = 0; i < v.value().size(); ++i) v.value()[i] = static_cast<T>(dist(rng));
    return v;
  }

  /// fg::gradcheck of sum(f(vars...)) in the layers this case covers: the static layer always,
  /// the tape layers in the dyn case only. A tensor's shape is a run-time value whatever the var
  /// declares, so the static case would compile and run the same tape checks a second time.
  template <class F, class... Vars>
  static void expect_gradcheck(F f, const Vars&... vars) {
    expect_gradcheck_in_static_layer(f, vars...);
    if constexpr (Dynamic) expect_gradcheck_on_the_tape(f, vars...);
  }

  /// A Var of extents (E...) holding `values` (row-major, converted to T).
  template <std::size_t... E>
  static var<E...> var_of(std::initializer_list<double> values) {
    var<E...> v(Extents{E...});
    EXPECT_EQ(values.size(), v.extents().size()) << "var_of: a test gives the wrong number of values";
    std::transform(values.begin(), values.end(), v.value().data(), [](double d) { return static_cast<T>(d); });
    return v;
  }
};

/// The cases every op test runs: float with dyn shapes (the static layer, a fused tape node and
/// fg::taped) and double with static shapes (the static layer). Between them they cover both scalar
/// types, both kinds of shape and every layer at half the compile time of all four combinations;
/// double on the tape is checked again by the random programs (tests/tape/bridge_random*).
using OpCases = ::testing::Types<Case<float, true>, Case<double, false>>;

/// Names the cases in test output: float_static, double_dyn ...
struct CaseNames {
  template <class C>
  static std::string GetName(int) {
    return std::string(std::is_same_v<typename C::value_type, float> ? "float" : "double") +
           (C::dynamic ? "_dyn" : "_static");
  }
};

/// The seed every typed test starts its generator from; printed by SCOPED_TRACE in the fixtures.
inline constexpr unsigned typed_seed = 12345u;

}  // namespace fusegrad::test
