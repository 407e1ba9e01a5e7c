// expr/type_name.hpp -- fg::type_name: an expression's type as a reader would write it, not as the compiler does.
#pragma once

#include <cstddef>
#include <string>

#include <fusegrad/concepts.hpp>
#include <fusegrad/expr/expression_graph.hpp>

namespace fusegrad {

namespace detail {
// A leaf as its type: Var<double, (3)>, Const<float, ()>, Tensor<double>.
inline std::string leaf_type_text(const expression_vertex& v) {
  switch (v.what) {
    case expression_vertex::kind::var:
      return "Var<" + v.scalar + ", " + v.shape + ">";
    case expression_vertex::kind::tensor:
      return "Tensor<" + v.scalar + ">";
    default:
      return "Const<" + v.scalar + ", " + v.shape + ">";
  }
}

// The subtree at k on one line: sum(mul(sin(Var<double, (3)>), Var<double, (3)>)).
inline std::string type_line(const expression_graph& g, std::size_t k) {
  const expression_vertex& v = g.vertices[k];
  if (v.is_leaf()) return leaf_type_text(v);
  std::string out = v.op + "(";
  for (std::size_t i = 0; i < v.operands.size(); ++i) out.append(i ? ", " : "").append(type_line(g, v.operands[i]));
  return out + ")";
}

// The subtree at k, on one line when it fits in `width` columns after `indent`; otherwise its
// operands one per line, indented two more.
inline void type_lines(const expression_graph& g, std::size_t k, std::size_t indent, std::size_t width,
                       std::string& out) {
  const std::string line = type_line(g, k);
  const expression_vertex& v = g.vertices[k];
  if (v.is_leaf() || indent + line.size() <= width) {
    out.append(indent, ' ').append(line);
    return;
  }
  out.append(indent, ' ').append(v.op).append("(\n");
  for (std::size_t i = 0; i < v.operands.size(); ++i) {
    type_lines(g, v.operands[i], indent + 2, width, out);
    out.append(i + 1 < v.operands.size() ? ",\n" : ")");
  }
}
}  // namespace detail

/// The type of expression `e` written as its operations and leaves, indented where a line would
/// pass `width` columns:
///   sum(
///     mul(
///       sin(Var<double, (3)>),
///       exp(mul(negate(Var<double, (3)>), Var<double, (3)>))))
/// (for sum(sin(v) * exp(-v * v)) at width 60)
/// where the compiler writes fusegrad::materialized_expr<fusegrad::sum_op<...>, ...> over a few
/// hundred characters. Shapes read as everywhere in fusegrad: (3, dyn), () for a scalar.
template <Expression E>
[[nodiscard]] std::string type_name(const E& e, std::size_t width = 80) {
  const expression_graph g = graph_of(e, [](const auto&) { return std::string(); });
  std::string out;
  detail::type_lines(g, g.root(), 0, width, out);
  return out;
}

}  // namespace fusegrad
