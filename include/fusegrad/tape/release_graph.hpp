// tape/release_graph.hpp -- release_graph: what a backward reads, dropped from every node of a graph, across casts.
#pragma once

#include <span>
#include <unordered_set>
#include <vector>

#include <fusegrad/tape/backward_pass.hpp>
#include <fusegrad/tape/node.hpp>
#include <fusegrad/tape/tensor_impl.hpp>
#include <fusegrad/tape/tensors_across.hpp>

namespace fusegrad::detail {

// Drops what backward reads in every node of the graph of one scalar type that produced the
// roots; the tensors its casts read go to `across`.
template <class T>
void release_one_graph(std::span<const backward_root<T>> roots, tensors_across& across) {
  std::unordered_set<node<T>*> seen;
  std::vector<node<T>*> to_visit;
  for (const backward_root<T>& root : roots)
    if (root.tensor->grad_fn) to_visit.push_back(root.tensor->grad_fn.get());
  std::vector<node<T>*> reached;
  while (!to_visit.empty()) {
    node<T>* n = to_visit.back();
    to_visit.pop_back();
    if (n->released || !seen.insert(n).second) continue;  // a released node's producers are reached already
    reached.push_back(n);
    for (const edge<T>& e : n->inputs())
      if (e.fn) to_visit.push_back(e.fn.get());
  }
  // Edges hold their producers, so releasing one node destroys none of the others.
  for (node<T>* n : reached) {
    if (n->leads_across()) n->visit_across(across);  // before release_saved drops the source
    n->release_saved();
    n->released = released_after_backward;
  }
}

// The same from a tensor of the other scalar type that a cast read (one taken from `across`).
template <class U>
void release_graph_of(tensor_impl<U>& source, tensors_across& across) {
  const backward_root<U> root{&source, nullptr};
  release_one_graph(std::span<const backward_root<U>>(&root, 1), across);
}

// Drops what backward reads in every node of the graph that produced the roots, across casts:
// a backward without retain_graph through casts ends with this.
template <class T>
void release_graph(std::span<const backward_root<T>> roots) {
  tensors_across across;
  release_one_graph(roots, across);
  across.drain([&across](auto& source) { release_graph_of(source, across); });
}

}  // namespace fusegrad::detail
