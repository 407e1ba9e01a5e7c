// static/op_specs_static_test.cpp -- every op spec that ops.hpp lists satisfies its concept, and the
// materialised ops also in their configurations over chosen axes. Compile-only: compiling is passing.
// A failure names the op ("required from ... [with Op = ...]") and the unsatisfied requirement.
#include <boost/mp11/list.hpp>

#include <fusegrad/fusegrad.hpp>

namespace {

namespace fg = fusegrad;
namespace mp = boost::mp11;

template <class... Ops>
constexpr bool all_unary(mp::mp_list<Ops...>) {
  ([]<class Op>() { static_assert(fg::UnaryOp<Op>); }.template operator()<Ops>(), ...);
  return true;
}
template <class... Ops>
constexpr bool all_binary(mp::mp_list<Ops...>) {
  ([]<class Op>() { static_assert(fg::BinaryOp<Op>); }.template operator()<Ops>(), ...);
  return true;
}
template <class... Ops>
constexpr bool all_materialized(mp::mp_list<Ops...>) {
  ([]<class Op>() { static_assert(fg::MaterializedOp<Op>); }.template operator()<Ops>(), ...);
  return true;
}

static_assert(all_unary(fg::unary_ops{}));
static_assert(all_binary(fg::binary_ops{}));
static_assert(all_materialized(fg::materialized_ops{}));

// The listed materialised ops reduce over all axes; these reduce over chosen ones, keeping them.
constexpr auto kept = fg::keep_dims::yes;
using over_chosen_axes =
    mp::mp_list<fg::sum_op<fg::Axes<0>, kept>, fg::mean_op<fg::Axes<0>, kept>, fg::max_op<fg::Axes<1>, kept>,
                fg::min_op<fg::Axes<1>, kept>, fg::argmax_op<fg::Axes<1>, kept>, fg::argmin_op<fg::Axes<0>, kept>,
                fg::prod_op<fg::Axes<1>, kept>, fg::logsumexp_op<fg::Axes<1>, kept>,
                fg::variance_op<fg::Axes<0, 1>, kept, 0>, fg::cumsum_op<1>>;
static_assert(all_materialized(over_chosen_axes{}));

}  // namespace
