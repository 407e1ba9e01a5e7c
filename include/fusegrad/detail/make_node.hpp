// detail/make_node.hpp -- the one place an op spec and its operands become an expression node.
#pragma once

#include <algorithm>
#include <array>
#include <tuple>
#include <type_traits>
#include <utility>

#include <fusegrad/concepts.hpp>
#include <fusegrad/detail/always_false.hpp>
#include <fusegrad/expr/binary_expr.hpp>
#include <fusegrad/expr/closure.hpp>
#include <fusegrad/expr/leaf.hpp>
#include <fusegrad/expr/materialized_expr.hpp>
#include <fusegrad/expr/unary_expr.hpp>

namespace fusegrad {

/// What a binary operation accepts: two expressions, or an expression and a plain number. (Data beside an expression
/// has overloads of its own: detail::data_in_place_of_an_expression.)
template <class A, class B>
concept BinaryOperands = (Differentiable<A> && (Differentiable<B> || Number<B>)) || (Number<A> && Differentiable<B>);

namespace detail {

// The one error for data where an operation takes an expression, shared by every operation, so that each says the
// same. D, the data's type, shows in the diagnostic's "required from" line.
template <class D>
constexpr void data_is_not_an_expression() {
  static_assert(always_false<D>,
                "fusegrad: an operand is data (an Eigen object, std::vector, std::array or std::span), not an "
                "expression; make it a leaf of the data's scalar type T first. Beside Vars: "
                "fg::Const<T, fg::Shape<...>>(eigen_object), whose rank is 1 for an Eigen vector type and 2 for "
                "another matrix or array, or fg::Const<T, fg::Shape<fg::dyn>, fg::view>(v.data(), {v.size()}) for "
                "a std::vector v (fg::Var to differentiate it). Beside Tensors: fg::Tensor::from(eigen_object), or "
                "fg::Tensor::from(v, {v.size()})");
}

// What an operation puts in the data's place after that error, or makes its result of: a scalar, which any later use
// takes without another error.
template <class T>
using placeholder_t = Const<T, Shape<>>;

// Numbers or data among an operation's operands, where it takes expressions only (matmul, einsum), beside at least one
// expression: these calls get an overload of their own, whose one error says what to write instead.
template <class V>
concept number_or_data = Number<V> || PlainData<V>;
template <class... Xs>
concept expressions_with_number_or_data = ((Differentiable<Xs> || number_or_data<Xs>)&&...) &&
                                          (number_or_data<Xs> || ...) && (Differentiable<Xs> || ...);

// The first of Xs that `which` marks.
template <std::size_t N>
constexpr std::size_t first_marked(const std::array<bool, N>& which) {
  return static_cast<std::size_t>(std::ranges::find(which, true) - which.begin());
}
template <std::array which, class... Xs>
using first_marked_t = std::tuple_element_t<first_marked(which), std::tuple<Xs...>>;

// Such an overload's error for the first data among Xs (its own static_assert says what to do with a number), and the
// scalar its result is made of after its error, of the first expression's scalar type.
template <class... Xs>
void first_data_is_not_an_expression() {
  data_is_not_an_expression<std::remove_cvref_t<first_marked_t<std::array{PlainData<Xs>...}, Xs...>>>();
}
template <class... Xs>
auto placeholder_beside() {
  using T = typename std::remove_cvref_t<first_marked_t<std::array{Differentiable<Xs>...}, Xs...>>::value_type;
  return placeholder_t<T>(T(0));
}

// Whether data holds floats (an Eigen object's Scalar, a std::vector's, std::array's or std::span's values).
template <class D>
constexpr bool holds_floats() {
  if constexpr (is_std_sequence_v<D>)
    return std::is_same_v<std::remove_cv_t<typename D::value_type>, float>;
  else if constexpr (requires { typename D::Scalar; })
    return std::is_same_v<std::remove_cv_t<typename D::Scalar>, float>;
  else
    return false;  // an Eigen object without values of its own, such as a permutation
}

// Data passed where an operation takes an expression (fg::sin(eigen_matrix), x + std_vector): each element-wise
// function and binary operator has an overload that takes this in the data's place, reached only through its
// converting constructor, and any expression beside it by const reference. So an overload that takes the data as it is
// (Eigen's sin of an array, found beside fusegrad's under `using namespace fusegrad`; a user's own operator+ for a Var
// and a std::vector) is the better match and keeps its calls, and only where none is does the one error fire.
// Beside an expression (Placeholder void) it takes any data. In an element-wise function's place it takes data of
// floats (Placeholder float) or of any other scalar (double), whose placeholder has that scalar type, so that what is
// built from it after the error meets float expressions without a second error.
template <class Placeholder = void>
class data_in_place_of_an_expression {
 public:
  template <PlainData D>
    requires(std::is_void_v<Placeholder> ||
             holds_floats<std::remove_cvref_t<D>>() == std::is_same_v<Placeholder, float>)
  data_in_place_of_an_expression(const D& /*data*/) {  // NOLINT: implicit, so that only the mistake converts
    data_is_not_an_expression<D>();
  }
  [[nodiscard]] static auto placeholder() requires(!std::is_void_v<Placeholder>) {
    return placeholder_t<Placeholder>(Placeholder(0));
  }
};
}  // namespace detail

// The two overloads of binary operation `name` for data beside an expression, on either side: the data converts to
// data_in_place_of_an_expression, whose constructor holds the one error, and after it the call gives what a number of
// the expression's scalar type there gives, so that nothing adds another. One line in each operation's header.
#define FUSEGRAD_DATA_OPERAND_OVERLOADS(name)                                                 \
  template <::fusegrad::Differentiable A>                                                     \
  [[nodiscard]] auto name(const A& a, ::fusegrad::detail::data_in_place_of_an_expression<>) { \
    return name(a, typename A::value_type(0));                                                \
  }                                                                                           \
  template <::fusegrad::Differentiable B>                                                     \
  [[nodiscard]] auto name(::fusegrad::detail::data_in_place_of_an_expression<>, const B& b) { \
    return name(typename B::value_type(0), b);                                                \
  }

// The overloads of element-wise function `name` for data in its operand's place, one for data of floats and one for
// any other: the data converts to data_in_place_of_an_expression, whose constructor holds the one error, and after it
// the call gives the function of a scalar placeholder. Each is a template whose parameter is never deduced, so that
// it is compiled only where a call takes it (its body makes a node, whose op's concepts instantiate Eigen
// expressions). One line in each function's header.
#define FUSEGRAD_DATA_OPERAND_OVERLOAD(name)                                                 \
  template <class Data = ::fusegrad::detail::data_in_place_of_an_expression<double>>         \
  [[nodiscard]] auto name(::fusegrad::detail::not_deduced_t<Data> data) {                    \
    return name(data.placeholder());                                                         \
  }                                                                                          \
  template <class Data = ::fusegrad::detail::data_in_place_of_an_expression<float>, int = 0> \
  [[nodiscard]] auto name(::fusegrad::detail::not_deduced_t<Data> data) {                    \
    return name(data.placeholder());                                                         \
  }

namespace detail {
// The type of that parameter of an element-wise function: a template parameter never deduced (its default).
template <class Data>
using not_deduced_t = std::type_identity_t<Data>;

// operand_t<Other, V>: how an operand passed as V&& is held beside `Other`: by its closure,
// or, for a plain number, as a scalar Const of Other's scalar type.
template <class Other, class V>
struct operand_impl {
  using type = closure_t<V&&>;
};
template <class Other, class V>
  requires Number<V>
struct operand_impl<Other, V> {
  using type = Const<typename std::remove_cvref_t<Other>::value_type, Shape<>>;
};
// Data in an expression's place (fg::where's branches): a scalar Const after the one error that says how to make the
// data an expression.
template <class Other, class V>
  requires PlainData<V>
struct operand_impl<Other, V> {
  using type = placeholder_t<typename std::remove_cvref_t<Other>::value_type>;
};
template <class Other, class V>
using operand_t = typename operand_impl<Other, V>::type;

template <class Other, class V>
operand_t<Other, V> as_operand(V&& v) {
  if constexpr (Number<V>) {
    using T = typename std::remove_cvref_t<Other>::value_type;
    return Const<T, Shape<>>(static_cast<T>(v));
  } else if constexpr (PlainData<V>) {
    data_is_not_an_expression<std::remove_cvref_t<V>>();
    return operand_t<Other, V>(0);
  } else {
    return std::forward<V>(v);
  }
}

template <UnaryOp Op, Differentiable X>
constexpr auto make_unary(X&& x) {
  return unary_expr<Op, closure_t<X&&>>{std::forward<X>(x)};
}

template <BinaryOp Op, class A, class B>
  requires BinaryOperands<A, B>
constexpr auto make_binary(A&& a, B&& b) {
  using lhs = operand_t<B, A>;
  using rhs = operand_t<A, B>;
  return binary_expr<Op, lhs, rhs>{as_operand<B>(std::forward<A>(a)), as_operand<A>(std::forward<B>(b))};
}

template <MaterializedOp Op, Differentiable... Xs>
constexpr auto make_materialized(Xs&&... xs) {
  return materialized_expr<Op, closure_t<Xs&&>...>{std::tuple<closure_t<Xs&&>...>(std::forward<Xs>(xs)...)};
}
// The same for an op with run-time parameters: the node keeps `op`.
template <MaterializedOp Op, Differentiable... Xs>
constexpr auto make_materialized_with(Op op, Xs&&... xs) {
  return materialized_expr<Op, closure_t<Xs&&>...>{std::tuple<closure_t<Xs&&>...>(std::forward<Xs>(xs)...),
                                                   std::move(op)};
}

}  // namespace detail
}  // namespace fusegrad
