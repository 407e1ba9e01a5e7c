// concepts.hpp -- the roles types play in fusegrad: expressions, leaves, op specs.
#pragma once

#include <array>
#include <complex>
#include <concepts>
#include <cstddef>
#include <iterator>
#include <span>
#include <string_view>
#include <type_traits>
#include <vector>

#include <Eigen/Core>

#include <fusegrad/shape/any_shape.hpp>
#include <fusegrad/shape/extents.hpp>

namespace fusegrad {

/// Which values an op's vector-Jacobian product reads. This is what the fused sweep keeps:
/// a node's block value is stored only when its own VJP reads its output or its parent's
/// VJP reads it as an input; otherwise it stays a lazy Eigen expression, inlined once.
enum class vjp_needs { none, input, output, input_and_output };

constexpr bool needs_input(vjp_needs n) { return n == vjp_needs::input || n == vjp_needs::input_and_output; }
constexpr bool needs_output(vjp_needs n) { return n == vjp_needs::output || n == vjp_needs::input_and_output; }

/// How the fused sweep treats a node: a leaf holds data, an element-wise node is fused into
/// its segment's loop, a materialised node (reduction, matmul ...) computes a whole array.
enum class node_kind { leaf, elementwise, materialized };

/// A scalar type fusegrad computes with: float, double, or a complex of them (complex step).
template <class T>
concept Scalar =
    std::floating_point<T> || std::same_as<T, std::complex<float>> || std::same_as<T, std::complex<double>>;

/// A scalar type's name as messages, pictures and saved models print it: "float", "double",
/// "complex<float>", "complex<double>".
template <Scalar T>
constexpr std::string_view scalar_name() {
  if constexpr (std::is_same_v<T, float>)
    return "float";
  else if constexpr (std::is_same_v<T, double>)
    return "double";
  else if constexpr (std::is_same_v<T, std::complex<float>>)
    return "complex<float>";
  else
    return "complex<double>";
}

/// A node of an expression: its scalar type, static shape, kind, and run-time extents.
template <class E>
concept Expression = requires(const E& e) {
  typename E::value_type;
  requires Scalar<typename E::value_type>;
  typename E::static_shape;
  requires ShapeLike<typename E::static_shape>;
  { E::kind } -> std::convertible_to<node_kind>;
  requires std::same_as<std::remove_cvref_t<decltype(e.extents())>, Extents>;  // a Tensor's by reference
};

/// What an operation accepts: an expression or a leaf, by any reference.
template <class E>
concept Differentiable = Expression<std::remove_cvref_t<E>>;

/// A leaf that can receive gradients (a Var, a Tensor).
template <class E>
concept GradLeaf = Expression<E> && E::kind == node_kind::leaf&& E::takes_grad;

/// A leaf that value_and_grad can differentiate with respect to: a Var of static rank.
template <class V>
concept Variable = GradLeaf<std::remove_cvref_t<V>> && ShapeType<typename std::remove_cvref_t<V>::static_shape>;

namespace detail {
template <class V>
inline constexpr bool is_variable_v = Variable<V>;
}  // namespace detail

/// A plain number that may stand beside an expression (`2.0 * x`): converted to a constant
/// of the expression's scalar type, so it must convert to float and multiply like one.
template <class T>
concept Number = !Expression<std::remove_cvref_t<T>> && requires(std::remove_cvref_t<T> v) {
  {static_cast<double>(std::real(v))};
  { v* v } -> std::convertible_to<std::remove_cvref_t<T>>;
};

namespace detail {
template <class T>
inline constexpr bool is_std_sequence_v = false;
template <class T, class Allocator>
inline constexpr bool is_std_sequence_v<std::vector<T, Allocator>> = true;
template <class T, std::size_t N>
inline constexpr bool is_std_sequence_v<std::array<T, N>> = true;
template <class T, std::size_t N>
inline constexpr bool is_std_sequence_v<std::span<T, N>> = true;

// Something a range-for walks (a container, a C array): what <ranges>' std::ranges::range says, without that header's
// cost to every translation unit.
template <class R>
concept iterable = requires(R& r) {
  std::begin(r);
  std::end(r);
};

// Declared only: whether a T* converts to it says whether T is an Eigen object.
template <class D>
void points_into_eigen(const Eigen::EigenBase<D>*);
template <class T>
concept eigen_object = requires(T* p) {
  detail::points_into_eigen(p);  // qualified: no argument-dependent lookup
};
// The same for Eigen's dense matrices and arrays, and types derived from them (fg::GradientArray, a Map).
template <class D>
void points_into_dense_eigen(const Eigen::DenseBase<D>*);
template <class T>
concept dense_eigen_object = requires(T* p) {
  detail::points_into_dense_eigen(p);
};
}  // namespace detail

/// Data that is not an expression, where a mistake passes it for one (`x + std_vector`, `fg::sin(eigen_matrix)`): an
/// Eigen object, or a std::vector, std::array or std::span. Only these, so that an operation's diagnostic for them
/// never takes a call that another overload, for a type of the user's own, would take.
template <class T>
concept PlainData = !Expression<std::remove_cvref_t<T>> &&
                    (detail::is_std_sequence_v<std::remove_cvref_t<T>> || detail::eigen_object<std::remove_cvref_t<T>>);

/// What every op spec names: `name` (the function, in expression text: "sin"),
/// `backward_name` (its tape node, PyTorch style: "SinBackward"), and `needs` (what its VJP
/// reads, which decides what the fused sweep keeps).
template <class Op>
concept OpSpec = requires {
  { Op::name } -> std::convertible_to<std::string_view>;
  { Op::backward_name } -> std::convertible_to<std::string_view>;
  { Op::needs } -> std::convertible_to<vjp_needs>;
};

/// Whether an op passes gradients. One that says `static constexpr bool differentiable =
/// false;` (a comparison) makes nodes that take none, as a constant does: the sweep sends
/// nothing through them and a recorded one needs no gradient (PyTorch's comparisons).
template <class Op>
inline constexpr bool is_differentiable_op_v = !requires {
  requires !Op::differentiable;
};

/// An op that says it may give its value together with its slope (value_with_slope, TakesValueWithSlope below) has
/// the function that does so.
template <class Op>
concept HasItsSlopeFunction = requires(const Eigen::ArrayXd& x, Eigen::ArrayXd& y, Eigen::ArrayXd& slope) {
  requires !requires { Op::template value_with_slope<double>; }
  || requires { Op::value_and_slope(x, y, slope); };
};

/// An element-wise unary op spec: its value and VJP as Eigen array expressions (checked
/// here on Eigen::ArrayXd). See ops/sin.hpp.
///
/// The op concepts are checked where a node is made (unary_expr's constraint) and, for every
/// op that ops.hpp lists, in tests/static/op_specs_static_test.cpp. An op header does not
/// static_assert them: deducing the value and VJP types instantiates Eigen expressions, which
/// would cost every translation unit that includes fusegrad, used or not.
template <class Op>
concept UnaryOp = OpSpec<Op> && requires(const Eigen::ArrayXd& a) {
  Op::value(a);
  Op::vjp(/*dy*/ a, /*x*/ a, /*y*/ a);
} && HasItsSlopeFunction<Op>;

/// A unary op that may give its value together with its slope dy/dx, when computing both costs about what the value
/// alone does (sin and cos, from one argument reduction): `value_with_slope<T>` says where, and
/// `value_and_slope(x, y, slope)` writes both (y and slope are Eigen arrays or maps of x's length). Its VJP is then
/// dy * slope, which vjp must equal bit for bit, and y must equal value(x). The fused sweep's block frames use it
/// (where no reverse sweep follows, the slope goes unread), and so does a taped node of the op alone over more than one
/// value, which keeps the slope for its backward; every other path calls value and vjp.
template <class Op, class T>
concept TakesValueWithSlope = requires {
  requires Op::template value_with_slope<T>;
};

/// An element-wise binary op spec: as UnaryOp, with one VJP per side, and the `symbol`
/// expression text puts between the operands ("*"; a function name such as "max" prints
/// as a call). Both VJPs return arrays in the broadcast shape; the node, not the op,
/// reduces them to operand shapes.
template <class Op>
concept BinaryOp = OpSpec<Op> && requires(const Eigen::ArrayXd& a) {
  { Op::symbol } -> std::convertible_to<std::string_view>;
  Op::value(a, a);
  Op::vjp_lhs(/*dy*/ a, /*lhs*/ a, /*rhs*/ a, /*y*/ a);
  Op::vjp_rhs(/*dy*/ a, /*lhs*/ a, /*rhs*/ a, /*y*/ a);
};

}  // namespace fusegrad
