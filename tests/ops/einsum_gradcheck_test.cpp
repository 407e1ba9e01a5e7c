// ops/einsum_gradcheck_test.cpp -- fg::gradcheck of einsum on every case of the PyTorch fixtures, in every layer.
#include <cstddef>
#include <string>
#include <tuple>
#include <utility>

#include <gtest/gtest.h>
#include <boost/mp11/algorithm.hpp>

#include <fusegrad/fusegrad.hpp>

#include "data/einsum/torch_reference.hpp"
#include "support/gradcheck_layers.hpp"

namespace {

namespace fg = fusegrad;
namespace mp = boost::mp11;
namespace ref = fg::test::torch_einsum_reference;

// The gradient of every case of the PyTorch fixtures (at their operands) by fg::gradcheck: the
// complex step and central differences, in the static layer, a fused tape node and fg::taped; and
// with the subscripts given at run time on the tape.
TEST(Gradients, Einsum) {
  mp::mp_for_each<mp::mp_transform<mp::mp_identity, ref::einsum_cases>>([](auto identity) {
    using Case = typename decltype(identity)::type;
    SCOPED_TRACE(std::string("einsum(\"") + Case::subscripts + "\")");
    [&]<class... Shapes, std::size_t... K>(mp::mp_list<Shapes...>, std::index_sequence<K...>) {
      std::tuple<fg::Var<double, Shapes>...> vars;
      ((std::copy_n(Case::operands[Case::one_tensor ? 0 : K], fg::size_v<Shapes>, std::get<K>(vars).value().data())),
       ...);
      if constexpr (Case::one_tensor) {
        const auto f = [](const auto& x) { return fg::einsum<Case::subscripts>(((void)K, x)...); };
        fg::test::expect_gradcheck_in_every_layer(f, std::get<0>(vars));
        const auto at_run_time = [](const auto& x) { return fg::einsum(Case::subscripts, ((void)K, x)...); };
        fg::test::expect_gradcheck_on_the_tape(at_run_time, std::get<0>(vars));
      } else {
        const auto f = [](const auto&... x) { return fg::einsum<Case::subscripts>(x...); };
        fg::test::expect_gradcheck_in_every_layer(f, std::get<K>(vars)...);
        const auto at_run_time = [](const auto&... x) { return fg::einsum(Case::subscripts, x...); };
        fg::test::expect_gradcheck_on_the_tape(at_run_time, std::get<K>(vars)...);
      }
    }(typename Case::shapes{}, std::make_index_sequence<mp::mp_size<typename Case::shapes>::value>{});
  });
}

}  // namespace
