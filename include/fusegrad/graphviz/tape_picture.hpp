// graphviz/tape_picture.hpp -- draw_graph: a recorded graph as DOT boxes and edges, in torchviz's conventions,
// across casts between scalar types.
#pragma once

#include <cstddef>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <fusegrad/expr/expression_graph.hpp>
#include <fusegrad/graphviz/dot_options.hpp>
#include <fusegrad/graphviz/dot_writer.hpp>
#include <fusegrad/tape/node.hpp>
#include <fusegrad/tape/tensor_impl.hpp>
#include <fusegrad/tape/tensor_names.hpp>

namespace fusegrad::detail {

// A picture being drawn: the writer, and the boxes drawn so far, by what they show (a node, a
// leaf tensor), so that a node or leaf that several paths reach is drawn once. Not a template:
// one picture holds the graphs of both scalar types when casts join them.
struct tape_picture {
  explicit tape_picture(const DotOptions& o) : options(o) {}

  const DotOptions& options;
  dot_writer dot;

  // The box a node's output leaves from: the node's box, or the last operation of its frame. Also the set of nodes
  // reached: an entry is empty until draw_node fills it.
  std::unordered_map<const void*, std::string> exit_of;
  // The box of each leaf tensor drawn.
  std::unordered_map<const void*, std::string> leaf_box_of;
  std::size_t next_id = 0;

  [[nodiscard]] std::string fresh_id(char prefix) { return prefix + std::to_string(++next_id); }

  // The light-blue box of a leaf that requires grad: its name (DotOptions::name's, else its own) and shape, as
  // torchviz labels parameters ("w\n(1)").
  template <class T>
  std::string leaf_box(const tensor_impl<T>& leaf) {
    const auto [it, fresh] = leaf_box_of.try_emplace(&leaf);
    if (fresh) {
      it->second = fresh_id('t');
      const std::string name = options.given_name(&leaf).value_or(
          leaf.named.load(std::memory_order_relaxed) ? tensor_names::get(&leaf) : std::string());
      dot.box(it->second, name.empty() ? leaf.extents.get().to_string() : name + "\n" + leaf.extents.get().to_string(),
              dot_colors::parameter);
    }
    return it->second;
  }
};

// One node as drawn: the box, or the frame of operations, that its input edges lead to.
struct drawn_node {
  std::string box;              // a node drawn as one box; empty for a frame
  std::string frame;            // the frame's id prefix
  expression_graph operations;  // a frame's expression
  std::vector<bool> drawn;      // which of its vertices are drawn: the operations that gradients pass through

  [[nodiscard]] std::string vertex_box(std::size_t k) const { return frame + "." + std::to_string(k); }
};

// The operations of a fused node's expression that gradients pass through, as the node's backward runs them: those
// that pass gradients to an operand that takes one (a tensor among the node's inputs, or such an operation). The
// others (a chain of data, a comparison, an argmax) are not drawn, as fg::taped records no node for them. The inputs
// are the node's edges, fixed when it was recorded: a leaf's requires_grad may have changed since. The root is always
// drawn: the node's output leaves from it.
template <class T>
std::vector<bool> on_gradient_paths(const expression_graph& g, const node<T>& n) {
  const auto is_input = [&](const void* identity) {
    for (const edge<T>& e : n.inputs())
      if (e.input == identity) return true;
    return false;
  };
  std::vector<bool> on_path(g.vertices.size(), false);  // operands come before the operations that read them
  for (std::size_t k = 0; k < g.vertices.size(); ++k) {
    const expression_vertex& v = g.vertices[k];
    if (v.is_leaf() || !v.differentiable) continue;
    for (const std::size_t operand : v.operands) {
      const expression_vertex& x = g.vertices[operand];
      if (x.is_leaf() ? x.what == expression_vertex::kind::tensor && is_input(x.identity) : bool(on_path[operand]))
        on_path[k] = true;
    }
  }
  if (!g.empty()) on_path[g.root()] = true;
  return on_path;
}

// Draws node `n` (a box, or a frame holding its operations) and records where its output leaves from.
template <class T>
drawn_node draw_node(const node<T>& n, tape_picture& picture) {
  drawn_node drawn;
  if (picture.options.expand_fused) n.add_expression(drawn.operations);
  const std::string id = picture.fresh_id('n');
  if (drawn.operations.operation_count() <= 1) {
    drawn.operations = {};
    drawn.box = id;
    picture.dot.box(id, n.released ? n.name() + "\n(freed)" : n.name(), dot_colors::operation);
    picture.exit_of[&n] = id;
    return drawn;
  }
  drawn.frame = id;
  drawn.drawn = on_gradient_paths(drawn.operations, n);
  picture.dot.begin_cluster(id, n.name());
  const auto& vertices = drawn.operations.vertices;
  for (std::size_t k = 0; k < vertices.size(); ++k) {
    if (!drawn.drawn[k]) continue;
    const std::string_view label = vertices[k].backward_name.empty() ? vertices[k].op : vertices[k].backward_name;
    picture.dot.box(drawn.vertex_box(k), label, dot_colors::operation);
  }
  picture.dot.end_cluster();
  for (std::size_t k = 0; k < vertices.size(); ++k)
    for (const std::size_t operand : vertices[k].operands)
      if (drawn.drawn[k] && drawn.drawn[operand]) picture.dot.edge(drawn.vertex_box(operand), drawn.vertex_box(k));
  picture.exit_of[&n] = drawn.vertex_box(drawn.operations.root());
  return drawn;
}

// Edges into a drawn node from the tensor `input`, which arrives from `source`: into its box,
// or into every operation of its frame that reads the tensor.
inline void draw_input(const drawn_node& to, const void* input, const std::string& source, tape_picture& picture) {
  if (!to.box.empty()) {
    picture.dot.edge(source, to.box);
    return;
  }
  const auto& vertices = to.operations.vertices;
  for (std::size_t k = 0; k < vertices.size(); ++k)
    for (const std::size_t operand : vertices[k].operands)
      if (to.drawn[k] && vertices[operand].what == expression_vertex::kind::tensor &&
          vertices[operand].identity == input)
        picture.dot.edge(source, to.vertex_box(k));
}

// The graphs of the other scalar type that the casts drawn so far read, to draw next, each with the box of the cast
// that its value goes into: a graph that changes type k times is drawn in one loop, never in k nested calls. The caller
// of draw_graph holds graph_lock, so no graph is released meanwhile.
struct casts_to_draw final : across_visitor {
  std::string into;  // the box of the cast node being visited
  std::vector<std::pair<const tensor_impl<float>*, std::string>> floats;
  std::vector<std::pair<const tensor_impl<double>*, std::string>> doubles;

  void visit(tensor_impl<float>& source) override { floats.emplace_back(&source, into); }
  void visit(tensor_impl<double>& source) override { doubles.emplace_back(&source, into); }
};

// Draws the graph of one scalar type that produced `root` and returns the box its value leaves
// from. Nodes already drawn (reached before, or from the other side of a cast) are not drawn
// again; the tensors the graph's casts read go to `across`.
template <class T>
std::string draw_one_graph(const tensor_impl<T>& root, tape_picture& picture, casts_to_draw& across) {
  if (!root.grad_fn) return picture.leaf_box(root);
  std::vector<const node<T>*> to_visit{root.grad_fn.get()}, reached;
  while (!to_visit.empty()) {
    const node<T>* n = to_visit.back();
    to_visit.pop_back();
    if (picture.exit_of.contains(n)) continue;
    picture.exit_of[n];  // reached: drawn below
    reached.push_back(n);
    for (const edge<T>& e : n->inputs())
      if (e.fn) to_visit.push_back(e.fn.get());
  }
  std::vector<drawn_node> drawn;
  drawn.reserve(reached.size());
  for (const node<T>* n : reached) drawn.push_back(draw_node(*n, picture));
  // A node that a backward freed no longer holds its inputs: the leaves it read may be gone, and
  // only its edges to other nodes (which it still owns) are drawn.
  for (std::size_t k = 0; k < reached.size(); ++k)
    for (const edge<T>& e : reached[k]->inputs())
      if (e.fn || !reached[k]->released)
        draw_input(drawn[k], e.input, e.fn ? picture.exit_of.at(e.fn.get()) : picture.leaf_box(*e.input), picture);
  for (std::size_t k = 0; k < reached.size(); ++k)
    if (reached[k]->leads_across()) {
      across.into = drawn[k].box;
      reached[k]->visit_across(across);
    }
  return picture.exit_of.at(root.grad_fn.get());
}

// Draws the graph that produced `root`, and the graphs of the other scalar type that its casts
// lead into, each with its edge into the cast's box; returns the box `root`'s value leaves from.
// The caller holds graph_lock.
template <class T>
std::string draw_graph(const tensor_impl<T>& root, tape_picture& picture) {
  casts_to_draw across;
  std::string exit = draw_one_graph(root, picture, across);
  while (!across.floats.empty() || !across.doubles.empty()) {
    if (!across.floats.empty()) {
      const auto [source, into] = std::move(across.floats.back());
      across.floats.pop_back();
      picture.dot.edge(draw_one_graph(*source, picture, across), into);
    } else {
      const auto [source, into] = std::move(across.doubles.back());
      across.doubles.pop_back();
      picture.dot.edge(draw_one_graph(*source, picture, across), into);
    }
  }
  return exit;
}

}  // namespace fusegrad::detail
