// expr/expression_graph.hpp -- a static expression as data: one vertex per op and per leaf occurrence, built from
// its type by the walk over children() that every other walk uses. Its text, its type's name and its pictures are
// all drawn from this one graph.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include <boost/hana/for_each.hpp>

#include <fusegrad/concepts.hpp>
#include <fusegrad/expr/children.hpp>
#include <fusegrad/expr/leaf_identity.hpp>
#include <fusegrad/expr/unary_expr.hpp>
#include <fusegrad/shape/any_shape.hpp>
#include <fusegrad/shape/shape.hpp>

namespace fusegrad {

/// One vertex of an expression_graph: an operation, or one occurrence of a leaf.
struct expression_vertex {
  enum class kind { operation, var, constant, number, tensor };
  /// How the expression's text writes an operation: `a * b`, `-(a)`, `sin(a)`.
  enum class form { call, infix, negation };

  kind what = kind::operation;
  form written = form::call;
  std::string op;                     // an operation's name ("mul", "sin", "sum"); empty for a leaf
  std::string_view symbol;            // an infix operation's symbol ("*")
  std::string_view backward_name;     // what the tape calls its node ("MulBackward")
  std::string label;                  // a leaf's label, given by the caller ("a", "2.5", "w")
  std::string scalar;                 // the scalar type: "double", "float", "complex<double>"
  std::string shape;                  // the static shape, "(3, dyn)"; a Tensor's shape at run time
  std::vector<std::size_t> operands;  // vertex indices of the operands, left to right
  const void* identity = nullptr;  // a leaf's values (a Var's, a Tensor's implementation): the same leaf twice has one
  bool takes_grad = false;         // a leaf that receives a gradient: a Var, a Tensor that requires grad
  bool differentiable = true;      // an operation that passes gradients to its operands (not a comparison, argmax)
  [[nodiscard]] bool is_leaf() const noexcept { return what != kind::operation; }
};

/// A static expression as data, operands before the operations that read them: the root is
/// the last vertex. `fg::to_dot(expr)`, `fg::type_name(expr)` and the text of errors are drawn
/// from it.
struct expression_graph {
  std::vector<expression_vertex> vertices;

  [[nodiscard]] bool empty() const noexcept { return vertices.empty(); }
  [[nodiscard]] std::size_t root() const noexcept { return vertices.size() - 1; }
  [[nodiscard]] std::size_t operation_count() const noexcept {
    std::size_t n = 0;
    for (const expression_vertex& v : vertices) n += !v.is_leaf();
    return n;
  }

  /// The expression as errors quote it: "sum(sin(a) * exp(-(a * a)))".
  [[nodiscard]] std::string text() const { return empty() ? std::string() : text_of(root()); }

 private:
  [[nodiscard]] std::string text_of(std::size_t k) const {
    const expression_vertex& v = vertices[k];
    if (v.is_leaf()) return v.label;
    std::string out;
    switch (v.written) {
      case expression_vertex::form::infix:
        out.append("(").append(text_of(v.operands[0])).append(" ");
        out.append(v.symbol).append(" ").append(text_of(v.operands[1])).append(")");
        break;
      case expression_vertex::form::negation:
        out.append("-(").append(text_of(v.operands[0])).append(")");
        break;
      case expression_vertex::form::call:
        out.append(v.op).append("(");
        for (std::size_t i = 0; i < v.operands.size(); ++i) out.append(i ? ", " : "").append(text_of(v.operands[i]));
        out.append(")");
        break;
    }
    return out;
  }
};

namespace detail {

template <class E>
constexpr expression_vertex::form written_form() {
  if constexpr (E::kind == node_kind::elementwise && !is_unary_expr_v<E>) {
    // Binary element-wise ops with an operator symbol print infix; maximum and minimum are calls.
    constexpr std::string_view symbol = E::op::symbol;
    return symbol == "max" || symbol == "min" ? expression_vertex::form::call : expression_vertex::form::infix;
  } else if constexpr (E::kind == node_kind::elementwise && E::op::name == std::string_view("negate")) {
    return expression_vertex::form::negation;
  } else {
    return expression_vertex::form::call;
  }
}

template <class E, class Label>
std::size_t add_vertices(const E& e, Label& label, expression_graph& g) {
  expression_vertex v;
  v.scalar = scalar_name<typename E::value_type>();
  if constexpr (std::is_same_v<typename E::static_shape, AnyShape>)
    v.shape = e.extents().to_string();  // over Tensors: known at run time only
  else
    v.shape = to_string<typename E::static_shape>();
  if constexpr (E::kind == node_kind::leaf) {
    v.identity = leaf_identity(e);
    if constexpr (requires { e.impl(); }) {
      v.what = expression_vertex::kind::tensor;
      v.takes_grad = e.requires_grad();
    } else {
      v.takes_grad = E::takes_grad;
      if constexpr (E::takes_grad)
        v.what = expression_vertex::kind::var;
      else
        v.what = std::is_same_v<typename E::static_shape, Shape<>> ? expression_vertex::kind::number
                                                                   : expression_vertex::kind::constant;
    }
    v.label = label(e);
  } else {
    boost::hana::for_each(children(e), [&](const auto& x) { v.operands.push_back(add_vertices(x, label, g)); });
    v.op = E::op::name;
    v.differentiable = is_differentiable_op_v<typename E::op>;
    v.written = written_form<E>();
    if constexpr (written_form<E>() == expression_vertex::form::infix) v.symbol = E::op::symbol;
    if constexpr (requires { E::op::backward_name; }) v.backward_name = E::op::backward_name;
  }
  g.vertices.push_back(std::move(v));
  return g.vertices.size() - 1;
}

}  // namespace detail

namespace detail {
// The name of the k-th unnamed leaf in an expression's text and pictures: a to z, then a1 to z1, a2...
inline std::string leaf_letter(std::size_t k) {
  std::string name(1, char('a' + k % 26));
  if (k >= 26) name += std::to_string(k / 26);
  return name;
}
}  // namespace detail

/// The graph of expression `e`; `label(leaf)` gives each leaf occurrence's label.
template <Expression E, class Label>
expression_graph graph_of(const E& e, Label&& label) {
  expression_graph g;
  detail::add_vertices(e, label, g);
  return g;
}

/// The expression as text, e.g. "sum(sin(a) * exp(-(a * a)))"; `leaf_name(leaf)` names leaves.
template <Expression E, class Name>
std::string describe(const E& e, Name&& leaf_name) {
  return graph_of(e, leaf_name).text();
}

}  // namespace fusegrad
