// ops/einsum_figures_test.cpp -- einsum and broadcasting element-wise ops against PyTorch's figures, in the static
// layer (subscripts checked at compile time), recorded as one fused node, and one node per op (fg::taped).
// The figures come from tests/data/einsum/make_reference.py; run it with Debian's python3-torch to regenerate them.
#include <cmath>
#include <cstddef>
#include <span>
#include <tuple>
#include <type_traits>
#include <utility>

#include <gtest/gtest.h>
#include <boost/mp11/algorithm.hpp>

#include <fusegrad/fusegrad.hpp>

#include "data/einsum/torch_reference.hpp"

namespace {

namespace fg = fusegrad;
namespace mp = boost::mp11;
namespace ref = fg::test::torch_einsum_reference;

void expect_close(const double* actual, const double* expected, std::size_t n, const std::string& what) {
  for (std::size_t i = 0; i < n; ++i)
    EXPECT_NEAR(actual[i], expected[i], 1e-10 * std::max(1.0, std::abs(expected[i]))) << what << ", element " << i;
}

// The values of a static result or gradient: an Eigen array, or one number for a scalar.
template <class A>
const double* data_of(const A& a) {
  if constexpr (std::is_arithmetic_v<A>)
    return &a;
  else
    return a.data();
}

// The operands of a case, one per shape: operand k's values (operand 0's for every k when the
// operands are one tensor).
template <class Case, std::size_t K>
const double* values_of() {
  return Case::operands[Case::one_tensor ? 0 : K];
}

// f's value and the gradients of sum(f(operands) * R) in every layer, against PyTorch's. When the
// operands are one tensor, f is given it once per operand and its gradient is their sum.
template <class Case, class F, class... Shapes>
void expect_figures(F f, mp::mp_list<Shapes...>) {
  using result_shape = typename Case::result_shape;
  constexpr std::size_t result_size = fg::size_v<result_shape>;
  constexpr std::size_t n = sizeof...(Shapes);
  constexpr std::size_t distinct = Case::one_tensor ? 1 : n;
  const Eigen::ArrayXd upstream = Eigen::Map<const Eigen::ArrayXd>(Case::upstream, Eigen::Index(result_size));
  [&]<std::size_t... K>(std::index_sequence<K...>) {
    // The static layer: its static result shape is PyTorch's.
    std::tuple<fg::Var<double, Shapes>...> vars;
    ((std::copy_n(values_of<Case, K>(), fg::size_v<Shapes>, std::get<K>(vars).value().data())), ...);
    const auto& first = std::get<0>(vars);
    const auto y = [&] {
      if constexpr (Case::one_tensor)
        return f(((void)K, first)...);
      else
        return f(std::get<K>(vars)...);
    }();
    static_assert(std::is_same_v<typename decltype(y)::static_shape, result_shape>, "the static shape is PyTorch's");
    if constexpr (Case::one_tensor) {
      const auto [value, dx] = fg::vjp(y, upstream, first);
      expect_close(data_of(value), Case::value, result_size, "static layer, value");
      expect_close(data_of(dx), Case::grads[0], fg::size_v<mp::mp_front<mp::mp_list<Shapes...>>>, "static layer, dx");
    } else {
      const auto result = fg::vjp(y, upstream, std::get<K>(vars)...);
      expect_close(data_of(std::get<0>(result)), Case::value, result_size, "static layer, value");
      ((expect_close(data_of(std::get<K + 1>(result)), Case::grads[K], fg::size_v<Shapes>,
                     "static layer, d(operand " + std::to_string(K) + ")")),
       ...);
    }
    // The tape: one fused node, then one node per op.
    for (const bool per_op : {false, true}) {
      const std::string layer = per_op ? "fg::taped" : "fused tape node";
      std::array<fg::Tensor, distinct> tensors;
      for (std::size_t k = 0; k < distinct; ++k) {
        const std::size_t sizes[] = {fg::size_v<Shapes>...};
        const fg::Extents extents[] = {fg::Extents::of<Shapes>()...};
        tensors[k] = fg::Tensor::from(std::span<const double>(Case::operands[k], sizes[k]), extents[k]);
        tensors[k].requires_grad_();
      }
      const auto expr = f(tensors[Case::one_tensor ? 0 : K]...);
      const fg::Tensor out = per_op ? fg::taped(expr) : fg::Tensor(expr);
      ASSERT_EQ(out.shape(), fg::Extents::of<result_shape>()) << layer;
      expect_close(out.data(), Case::value, result_size, layer + ", value");
      out.backward(fg::Tensor::from(std::span<const double>(Case::upstream, result_size), out.shape()));
      for (std::size_t k = 0; k < distinct; ++k)
        expect_close(tensors[k].grad().data(), Case::grads[k], tensors[k].numel(),
                     layer + ", d(operand " + std::to_string(k) + ")");
    }
  }
  (std::make_index_sequence<n>{});
}

TEST(EinsumAgainstPyTorch, EveryCaseInEveryLayer) {
  mp::mp_for_each<mp::mp_transform<mp::mp_identity, ref::einsum_cases>>([](auto identity) {
    using Case = typename decltype(identity)::type;
    SCOPED_TRACE(std::string("einsum(\"") + Case::subscripts + "\")");
    // Subscripts as a template argument: parsed and checked at compile time.
    expect_figures<Case>([](const auto&... x) { return fg::einsum<Case::subscripts>(x...); }, typename Case::shapes{});
  });
}

// The same with the subscripts given at run time (the static layer then knows no result shape:
// these figures are checked on the tape).
TEST(EinsumAgainstPyTorch, SubscriptsGivenAtRunTime) {
  mp::mp_for_each<mp::mp_transform<mp::mp_identity, ref::einsum_cases>>([](auto identity) {
    using Case = typename decltype(identity)::type;
    SCOPED_TRACE(std::string("einsum(\"") + Case::subscripts + "\")");
    [&]<class... Shapes>(mp::mp_list<Shapes...>) {
      constexpr std::size_t n = sizeof...(Shapes), distinct = Case::one_tensor ? 1 : n;
      constexpr std::size_t result_size = fg::size_v<typename Case::result_shape>;
      const std::size_t sizes[] = {fg::size_v<Shapes>...};
      const fg::Extents extents[] = {fg::Extents::of<Shapes>()...};
      std::array<fg::Tensor, distinct> tensors;
      for (std::size_t k = 0; k < distinct; ++k)
        tensors[k] =
            fg::Tensor::from(std::span<const double>(Case::operands[k], sizes[k]), extents[k]).requires_grad_();
      const fg::Tensor out = [&]<std::size_t... K>(std::index_sequence<K...>) {
        return fg::Tensor(fg::einsum(Case::subscripts, tensors[Case::one_tensor ? 0 : K]...));
      }
      (std::make_index_sequence<n>{});
      expect_close(out.data(), Case::value, result_size, "value");
      out.backward(fg::Tensor::from(std::span<const double>(Case::upstream, result_size), out.shape()));
      for (std::size_t k = 0; k < distinct; ++k)
        expect_close(tensors[k].grad().data(), Case::grads[k], tensors[k].numel(), "gradient");
    }(typename Case::shapes{});
  });
}

TEST(BroadcastingAgainstPyTorch, ElementwiseOpsAndTheirReducedGradients) {
  expect_figures<ref::mul_broadcast>([](const auto& a, const auto& b) { return a * b; }, ref::mul_broadcast::shapes{});
  expect_figures<ref::sub_broadcast>([](const auto& a, const auto& b) { return a - b; }, ref::sub_broadcast::shapes{});
  expect_figures<ref::div_broadcast_column>([](const auto& a, const auto& b) { return a / (b * b + 1.0); },
                                            ref::div_broadcast_column::shapes{});
  expect_figures<ref::fused_broadcast_chain>(
      [](const auto& a, const auto& b) { return fg::sin(a) * b + fg::exp(-b) / (1.0 + a * a); },
      ref::fused_broadcast_chain::shapes{});
}

}  // namespace
