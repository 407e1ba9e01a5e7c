// support/gradcheck_layers.hpp -- fg::gradcheck of one function in every layer: static (Vars), a fused tape node,
// and one tape node per op (fg::taped).
#pragma once

#include <concepts>
#include <cstddef>
#include <span>
#include <string>
#include <type_traits>
#include <utility>

#include <gtest/gtest.h>

#include <fusegrad/check/gtest.hpp>
#include <fusegrad/fusegrad.hpp>

namespace fusegrad::test {

/// A tensor holding a var's values and extents.
template <class V>
BasicTensor<typename V::value_type> tensor_of(const V& var) {
  using T = typename V::value_type;
  return BasicTensor<T>::from(std::span<const T>(var.data(), var.extents().size()), var.extents());
}

/// sum(f(inputs...)) as a function for fg::gradcheck.
template <class F>
auto sum_of(F f) {
  return [f](const auto&... x) { return sum(f(x...)); };
}

/// Checks the gradient of sum(f(vars...)) with fg::gradcheck in the static layer. `f` is generic
/// (`[](const auto& x) { ... }`), so the references run in double and through the complex step.
template <class F, class... Vars>
void expect_gradcheck_in_static_layer(F f, const Vars&... vars) {
  EXPECT_TRUE(gtest::gradcheck(sum_of(f), vars...)) << "static layer";
}

/// Checks the gradient of sum(f(tensors...)), with the vars' values as Tensors, recorded in one
/// fused node (against the complex step where f is analytic), then one node per op (fg::taped,
/// against central differences).
template <class F, class... Vars>
void expect_gradcheck_on_the_tape(F f, const Vars&... vars) {
  const auto total = sum_of(f);
  EXPECT_TRUE(gtest::gradcheck(total, tensor_of(vars)...)) << "tape, one fused node";
  // A function that records a tensor is compiled for complex tensors too when it takes them (its
  // graph says whether it is analytic only at run time): offered real tensors only, the taped
  // graph of every op is compiled for float and double alone.
  EXPECT_TRUE(gtest::gradcheck(
      [total](const auto&... x) requires(std::floating_point<typename std::remove_cvref_t<decltype(x)>::value_type> &&
                                         ...) { return taped(total(x...)); },
      tensor_of(vars)...))
      << "tape, one node per op (fg::taped)";
}

/// Both: the gradient of sum(f(...)) in the static layer, in a fused tape node and through fg::taped.
template <class F, class... Vars>
void expect_gradcheck_in_every_layer(F f, const Vars&... vars) {
  expect_gradcheck_in_static_layer(f, vars...);
  expect_gradcheck_on_the_tape(f, vars...);
}

}  // namespace fusegrad::test
