// static/op_specs_static_test.cpp -- every op spec that ops.hpp lists satisfies its concept, and the
// materialised ops also in their configurations over chosen axes. Compile-only: compiling is passing.
// A failure names the op ("required from ... [with Op = ...]") and the unsatisfied requirement.
#include <string_view>

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

// An op that says it gives its value with its slope (value_with_slope) must have value_and_slope: without it, it is
// not a UnaryOp, and using it is one error at the node that would hold it.
struct sin_without_its_slope_function {
  static constexpr std::string_view name = "sin";
  static constexpr std::string_view backward_name = "SinBackward";
  static constexpr fg::vjp_needs needs = fg::vjp_needs::input;
  static auto value(const auto& x) { return fg::math::sin(x); }
  static auto vjp(const auto& dy, const auto& x, const auto& /*y*/) { return dy * fg::math::cos(x); }
  template <class T>
  static constexpr bool value_with_slope = true;
};
struct sin_with_its_slope_function : sin_without_its_slope_function {
  static void value_and_slope(const auto& x, auto& y, auto& slope) { fg::math::sin_cos(x, y, slope); }
};
static_assert(!fg::UnaryOp<sin_without_its_slope_function>);
static_assert(fg::UnaryOp<sin_with_its_slope_function>);

}  // namespace
