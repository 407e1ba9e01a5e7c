// static/expr_static_test.cpp -- compile-time facts about static expressions: result shapes, concepts, the closure
// rule. Compile-only: every check is a static_assert, so compiling this file is passing it.
#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

#include <fusegrad/fusegrad.hpp>

namespace {

namespace fg = fusegrad;
using fg::dyn;
using fg::Shape;

template <class S>
using V = fg::Var<double, S>;
template <class S>
using C = fg::Const<double, S>;

// An lvalue and an rvalue of each type, for decltype.
template <class T>
T& lvalue();
template <class T>
T rvalue();

template <class E>
using shape_of = typename std::remove_cvref_t<E>::static_shape;

// --- result shapes ------------------------------------------------------------------------------
using x31 = V<Shape<3, 1>>;
using y4 = V<Shape<4>>;
static_assert(std::is_same_v<shape_of<decltype(lvalue<x31>() * lvalue<y4>())>, Shape<3, 4>>, "(3, 1) x (4) -> (3, 4)");
static_assert(std::is_same_v<shape_of<decltype(lvalue<y4>() + lvalue<x31>())>, Shape<3, 4>>, "(4) + (3, 1) -> (3, 4)");
static_assert(std::is_same_v<shape_of<decltype(2.0 * lvalue<x31>())>, Shape<3, 1>>, "a number keeps the shape");
static_assert(std::is_same_v<shape_of<decltype(lvalue<V<Shape<>>>() - lvalue<y4>())>, Shape<4>>, "a scalar broadcasts");
static_assert(std::is_same_v<shape_of<decltype(fg::sin(lvalue<x31>()))>, Shape<3, 1>>, "unary ops keep the shape");
static_assert(std::is_same_v<shape_of<decltype(lvalue<V<Shape<3, dyn>>>() * lvalue<y4>())>, Shape<3, 4>>,
              "dyn yields to a static extent other than 1");
static_assert(std::is_same_v<shape_of<decltype(lvalue<V<Shape<dyn>>>() * lvalue<V<Shape<dyn>>>())>, Shape<dyn>>,
              "dyn with dyn stays dyn");

using x23 = V<Shape<2, 3>>;
static_assert(std::is_same_v<shape_of<decltype(fg::sum(lvalue<x23>()))>, Shape<>>, "sum over all axes: a scalar");
static_assert(std::is_same_v<shape_of<decltype(fg::mean(lvalue<x23>()))>, Shape<>>, "mean over all axes: a scalar");
static_assert(std::is_same_v<shape_of<decltype(fg::max(lvalue<x23>()))>, Shape<>>, "max: a scalar");
static_assert(std::is_same_v<shape_of<decltype(fg::sum(lvalue<x23>(), fg::axes<0>))>, Shape<3>>, "sum axis 0");
static_assert(std::is_same_v<shape_of<decltype(fg::sum(lvalue<x23>(), fg::axes<1>))>, Shape<2>>, "sum axis 1");
static_assert(std::is_same_v<shape_of<decltype(fg::sum(lvalue<x23>(), fg::axes<0>, fg::keepdims))>, Shape<1, 3>>,
              "sum axis 0, keepdims");
static_assert(std::is_same_v<shape_of<decltype(fg::mean(lvalue<x23>(), fg::axes<1>, fg::keepdims))>, Shape<2, 1>>,
              "mean axis 1, keepdims");
static_assert(std::is_same_v<shape_of<decltype(fg::sum(lvalue<x23>(), fg::axes<0, 1>))>, Shape<>>, "both axes");
static_assert(std::is_same_v<shape_of<decltype(fg::sum(lvalue<x23>(), fg::axes<0, 1>, fg::keepdims))>, Shape<1, 1>>,
              "both axes, keepdims");
static_assert(std::is_same_v<shape_of<decltype(fg::sum(lvalue<V<Shape<dyn, 3>>>(), fg::axes<1>))>, Shape<dyn>>,
              "a dyn axis that is kept stays dyn");
static_assert(std::is_same_v<shape_of<decltype(fg::sum(lvalue<V<Shape<2, 3, 4>>>(), fg::axes<0, 2>))>, Shape<3>>,
              "rank 3 summed over axes 0 and 2");

static_assert(
    std::is_same_v<shape_of<decltype(fg::matmul(lvalue<V<Shape<4, 3>>>(), lvalue<V<Shape<3, 2>>>()))>, Shape<4, 2>>,
    "(4, 3) x (3, 2) -> (4, 2)");
static_assert(std::is_same_v<shape_of<decltype(fg::matmul(lvalue<V<Shape<dyn, 3>>>(), lvalue<V<Shape<dyn, 2>>>()))>,
                             Shape<dyn, 2>>,
              "(dyn, 3) x (dyn, 2) -> (dyn, 2)");
static_assert(std::is_same_v<shape_of<decltype(fg::transpose(lvalue<V<Shape<4, 3>>>()))>, Shape<3, 4>>,
              "transpose (4, 3) -> (3, 4)");

// --- scalar types ----------------------------------------------------------------------------------
static_assert(std::is_same_v<typename decltype(2.0 * lvalue<fg::Var<float, Shape<3>>>())::value_type, float>,
              "a double literal beside a float expression becomes a float constant");
static_assert(std::is_same_v<typename decltype(2 * lvalue<x23>())::lhs_type, fg::Const<double, Shape<>>>,
              "an int literal becomes a scalar Const of the expression's type");

// --- concepts ---------------------------------------------------------------------------------------
using expr_t = decltype(fg::sin(lvalue<x23>()) * lvalue<C<Shape<3>>>());
static_assert(fg::Expression<x23> && fg::Expression<C<Shape<3>>> && fg::Expression<expr_t>,
              "leaves and nodes are Expressions");
static_assert(fg::Expression<decltype(fg::sum(lvalue<x23>()))>, "a materialised node is an Expression");
static_assert(fg::Expression<fg::Var<double, Shape<dyn>, fg::view>>, "a view is an Expression");
static_assert(fg::Differentiable<x23&> && fg::Differentiable<const x23&> && fg::Differentiable<expr_t&&>,
              "Differentiable accepts any reference");
static_assert(!fg::Differentiable<double> && !fg::Differentiable<int> && !fg::Expression<Shape<3>>,
              "numbers and shapes are not expressions");
static_assert(fg::Variable<x23> && fg::Variable<const x23&> && fg::Variable<fg::Var<float, Shape<>>>,
              "Vars are Variables");
static_assert(fg::Variable<fg::Var<double, Shape<dyn>, fg::view>>, "a view Var is a Variable");
static_assert(!fg::Variable<C<Shape<3>>>, "a Const takes no gradient");
static_assert(!fg::Variable<expr_t> && !fg::Variable<decltype(fg::sum(lvalue<x23>()))>,
              "an expression is not a Variable, even if it depends on Vars");
static_assert(fg::GradLeaf<x23> && !fg::GradLeaf<C<Shape<3>>>, "GradLeaf: Vars only");

static_assert(fg::UnaryOp<fg::sin_op> && fg::UnaryOp<fg::exp_op> && fg::UnaryOp<fg::negate_op>, "unary op specs");
static_assert(fg::BinaryOp<fg::mul_op> && fg::BinaryOp<fg::pow_op> && fg::BinaryOp<fg::maximum_op>, "binary op specs");
static_assert(!fg::UnaryOp<fg::mul_op> && !fg::BinaryOp<fg::sin_op>, "arity is part of the concept");
static_assert(!fg::UnaryOp<fg::matmul_op> && !fg::BinaryOp<fg::matmul_op>, "matmul is materialised");
static_assert(fg::MaterializedOp<fg::matmul_op> && fg::MaterializedOp<fg::transpose_op>, "materialised op specs");
static_assert(!fg::UnaryOp<int> && !fg::BinaryOp<int>, "a type without the members is no op");

static_assert(expr_t::kind == fg::node_kind::elementwise, "an element-wise node");
static_assert(decltype(fg::sum(lvalue<x23>()))::kind == fg::node_kind::materialized, "a materialised node");
static_assert(x23::kind == fg::node_kind::leaf, "a leaf");
static_assert(expr_t::takes_grad && !decltype(fg::exp(lvalue<C<Shape<3>>>()))::takes_grad,
              "a node takes gradients iff one of its leaves does");

// --- the closure rule: lvalue leaves by const&, everything else by value -----------------------------
using from_lvalue = decltype(fg::exp(lvalue<x23>()));
static_assert(std::is_same_v<decltype(from_lvalue::x), const x23&>, "an lvalue Var is held by const&");
using from_const_lvalue = decltype(fg::exp(lvalue<const x23>()));
static_assert(std::is_same_v<decltype(from_const_lvalue::x), const x23&>, "a const lvalue Var too");
using from_rvalue_leaf = decltype(fg::exp(rvalue<C<Shape<2, 3>>>()));
static_assert(std::is_same_v<decltype(from_rvalue_leaf::x), C<Shape<2, 3>>>,
              "a temporary Const is held by value (a temporary Var is refused: fail/rvalue_var.cpp)");
using nested = decltype(fg::sin(fg::exp(lvalue<x23>())));
static_assert(std::is_same_v<decltype(nested::x), from_lvalue>, "a temporary expression is held by value");
using from_lvalue_expr = decltype(fg::sin(lvalue<from_lvalue>()));
static_assert(std::is_same_v<decltype(from_lvalue_expr::x), from_lvalue>,
              "an lvalue expression is copied too: only leaves are referenced");
using product = decltype(lvalue<x23>() * fg::exp(lvalue<x23>()));
static_assert(std::is_same_v<decltype(product::lhs), const x23&> && std::is_same_v<decltype(product::rhs), from_lvalue>,
              "binary nodes follow the same rule on each side");
using scaled = decltype(lvalue<x23>() * 2.0);
static_assert(std::is_same_v<decltype(scaled::rhs), C<Shape<>>>, "a number is held as a scalar Const, by value");
using total = decltype(fg::sum(lvalue<x23>()));
static_assert(std::is_same_v<decltype(total::args), std::tuple<const x23&>>,
              "materialised nodes: lvalue leaf by const&");
using total_of_expr = decltype(fg::sum(fg::exp(lvalue<x23>())));
static_assert(std::is_same_v<decltype(total_of_expr::args), std::tuple<from_lvalue>>,
              "materialised nodes: expression by value");

// --- leaf types, and the graphs whose whole sweep is inlined into the caller -------------------------
using scalar = V<Shape<>>;
using b4 = decltype(lvalue<scalar>() * lvalue<scalar>() + fg::sin(lvalue<scalar>()) * 2.0);
static_assert(std::is_same_v<fg::leaf_types_t<b4>, boost::mp11::mp_list<scalar, scalar, scalar, C<Shape<>>>>,
              "one leaf type per occurrence, left to right; a number is a scalar Const");
static_assert(std::is_same_v<fg::leaf_types_t<decltype(fg::sum(lvalue<x31>() * lvalue<y4>() - 1.0, fg::axes<0>))>,
                             boost::mp11::mp_list<x31, y4, C<Shape<>>>>,
              "through materialised nodes too");
static_assert(fg::leaf_count<b4>() == 4 && fg::leaf_count<b4, true>() == 3, "leaf occurrences; those taking gradients");
using on_tensors = decltype(fg::Tensor() * fg::ConstTensor() + fg::ScalarTensor(1.0));
static_assert(fg::leaf_count<on_tensors>() == 3 && fg::leaf_count<on_tensors, true>() == 2, "a ConstTensor takes none");
static_assert(fg::detail::one_element_graph_v<b4> &&
                  fg::detail::one_element_graph_v<decltype(fg::sum(lvalue<V<Shape<1, 1>>>()))>,
              "every leaf holds one value");
static_assert(!fg::detail::one_element_graph_v<total> &&
                  !fg::detail::one_element_graph_v<decltype(lvalue<scalar>() * lvalue<V<Shape<dyn>>>())>,
              "a leaf of several (or of a run-time number of) values");

// --- what eval, value_and_grad and vjp return -------------------------------------------------------
static_assert(std::is_same_v<decltype(fg::eval(lvalue<total>())), double>, "a rank-0 value is a scalar");
static_assert(std::is_same_v<decltype(fg::eval(lvalue<from_lvalue>())), fg::storage_t<double, Shape<2, 3>>>,
              "otherwise a flat array of the expression's storage");
static_assert(std::is_same_v<fg::storage_t<double, Shape<2, 3>>, Eigen::Array<double, 6, 1>>,
              "small static shapes live in fixed-size arrays");
static_assert(std::is_same_v<fg::storage_t<double, Shape<dyn, 3>>, Eigen::ArrayXd>, "dyn shapes in dynamic arrays");
static_assert(std::is_same_v<decltype(fg::value_and_grad(lvalue<total>(), lvalue<x23>(), lvalue<V<Shape<>>>())),
                             std::tuple<double, Eigen::Array<double, 6, 1>, double>>,
              "value_and_grad: the value, then one gradient per var, shaped like it (a scalar for Shape<>)");
static_assert(std::is_same_v<decltype(fg::grad(lvalue<total>(), lvalue<x23>())), Eigen::Array<double, 6, 1>>,
              "grad of one var: its gradient alone");

// A static slice counts its elements without overflow, at any step.
static_assert(fg::detail::static_slice<0, 0, 3, 2>::count == 2 && fg::detail::static_slice<0, 1, 1, 1>::count == 0);
static_assert(fg::detail::static_slice<0, 0, 3, std::size_t(-1)>::count == 1, "a step past the end takes one element");

}  // namespace
