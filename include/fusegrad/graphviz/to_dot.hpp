// graphviz/to_dot.hpp -- fg::to_dot: pictures, in Graphviz's DOT language, of a recorded graph and of a static
// expression's type.
#pragma once

#include <algorithm>
#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <fusegrad/concepts.hpp>
#include <fusegrad/detail/number_text.hpp>
#include <fusegrad/expr/expression_graph.hpp>
#include <fusegrad/graphviz/dot_options.hpp>
#include <fusegrad/graphviz/dot_writer.hpp>
#include <fusegrad/graphviz/tape_picture.hpp>
#include <fusegrad/tape/basic_tensor.hpp>
#include <fusegrad/tape/graph_lock.hpp>

namespace fusegrad {

/// The graph that produced `t`, in DOT, drawn as torchviz draws PyTorch's: leaves that require grad as light-blue
/// boxes with their name (DotOptions::name's, else t.name("w")) and shape, one grey box per node named like its
/// backward ("MulBackward"), `t` as a green box with its shape, an edge from each input to the node that reads it;
/// tensors that take no gradient are not drawn. A node that fused several operations is a dashed frame titled
/// FusedBackward holding one box per operation that gradients pass through (one box with `.expand_fused = false`).
/// Casts are followed into the graph of the other scalar type. Render it with fg::render (<fusegrad/graphviz.hpp>) or
/// Graphviz's `dot`. Example: examples/graphs.cpp.
template <Scalar T>
[[nodiscard]] std::string to_dot(const BasicTensor<T>& t, const DotOptions& options = {}) {
  const std::string name = options.given_name(t.impl()).value_or(t.name());  // t.name() throws when t is undefined
  const detail::tensor_impl<T>& impl = *t.impl();
  const detail::graph_lock lock;
  detail::tape_picture picture(options);
  const std::string output = "output";
  picture.dot.box(output, name.empty() ? t.shape().to_string() : name + "\n" + t.shape().to_string(),
                  dot_colors::output);
  if (impl.grad_fn) picture.dot.edge(detail::draw_graph(impl, picture), output);
  return picture.dot.str();
}

namespace detail {
// Names the leaves of a static expression in a picture: the options' names, else a, b, c ... by
// first appearance (the same leaf twice has one name); a number (a Const of one value) is its value, unless named.
class leaf_namer {
 public:
  explicit leaf_namer(const DotOptions& options) : options_(options) {}
  template <class L>
  std::string operator()(const L& leaf) {
    const void* identity = leaf_identity(leaf);
    if (std::optional<std::string> given = options_.given_name(identity)) return *given;
    if constexpr (!is_tensor_v<L> && !L::takes_grad && std::is_same_v<typename L::static_shape, Shape<>>) {
      return number_text(leaf.data()[0]);
    } else {
      if constexpr (is_tensor_v<L>)
        if (std::string name = leaf.name(); !name.empty()) return name;
      const auto seen = std::find(unnamed_.begin(), unnamed_.end(), identity);
      const std::size_t k = std::size_t(seen - unnamed_.begin());
      if (seen == unnamed_.end()) unnamed_.push_back(identity);
      return leaf_letter(k);
    }
  }

 private:
  const DotOptions& options_;
  std::vector<const void*> unnamed_;
};

inline std::string leaf_kind_text(const expression_vertex& v) {
  switch (v.what) {
    case expression_vertex::kind::var:
      return "Var";
    case expression_vertex::kind::tensor:
      return "Tensor";
    default:
      return "Const";
  }
}
}  // namespace detail

/// A static expression's graph, from its type, in DOT: each leaf as a box with its name (a, b ... or DotOptions::name),
/// its kind (light blue where it takes a gradient: a Var, a Tensor that requires grad; white otherwise: a Const, a
/// Tensor that does not) and its static shape (dyn where only the run time knows an extent), each number as plain text
/// (a Const of one value that the options name is a box like any leaf), each operation as a grey box with its result's
/// static shape, and the value as a green box. An expression of Tensors not yet recorded is drawn the same way, with
/// the shapes of this run (record it, `fg::Tensor t = expr`, to draw the node it becomes). Example:
/// examples/graphs.cpp.
template <Expression E>
  requires(!detail::is_tensor_v<E>)
[[nodiscard]] std::string to_dot(const E& expr, const DotOptions& options = {}) {
  detail::leaf_namer namer(options);
  const expression_graph graph = graph_of(expr, namer);
  dot_writer dot;
  std::vector<std::string> box(graph.vertices.size());
  std::vector<std::pair<const void*, std::string>> leaf_boxes;  // one box per leaf, however often it is read
  for (std::size_t k = 0; k < graph.vertices.size(); ++k) {
    const expression_vertex& v = graph.vertices[k];
    box[k] = "v" + std::to_string(k);
    if (v.what == expression_vertex::kind::number && !options.given_name(v.identity)) {
      dot.text(box[k], v.label);
    } else if (v.is_leaf()) {
      const auto drawn =
          std::find_if(leaf_boxes.begin(), leaf_boxes.end(), [&](const auto& b) { return b.first == v.identity; });
      if (drawn != leaf_boxes.end()) {
        box[k] = drawn->second;
        continue;
      }
      leaf_boxes.emplace_back(v.identity, box[k]);
      dot.box(box[k], v.label + "\n" + detail::leaf_kind_text(v) + " " + v.shape,
              v.takes_grad ? dot_colors::parameter : dot_colors::constant);
    } else {
      dot.box(box[k], v.op + "\n" + v.shape, dot_colors::operation);
      for (const std::size_t operand : v.operands) dot.edge(box[operand], box[k]);
    }
  }
  if (!graph.empty()) {
    dot.box("value", graph.vertices.back().shape, dot_colors::output);
    dot.edge(box[graph.root()], "value");
  }
  return dot.str();
}

}  // namespace fusegrad
