// tape/walk_graph.hpp -- walk_graph: every tensor a recorded graph reads, across casts between scalar types.
#pragma once

#include <functional>
#include <unordered_set>
#include <vector>

#include <fusegrad/tape/graph_lock.hpp>
#include <fusegrad/tape/node.hpp>
#include <fusegrad/tape/tensor_impl.hpp>
#include <fusegrad/tape/tensors_across.hpp>

namespace fusegrad::detail {

// One walk over a recorded graph and the graphs of other scalar types its casts lead into:
// what it hands every tensor to, whether it checks that each node can run, the nodes it has
// seen, of every type, so that each is walked once however many paths lead to it, and the
// tensors behind the casts met so far, to walk next.
struct graph_walk {
  std::function<void(const void*)> on_tensor;
  bool check_runnable = false;
  std::unordered_set<const void*> seen;
  tensors_across across;
};

// Walks the graph of one scalar type that produced `root`; the tensors its casts read go to
// walk.across.
template <class T>
void walk_one_graph(tensor_impl<T>& root, graph_walk& walk) {
  if (walk.on_tensor) walk.on_tensor(&root);
  std::vector<node<T>*> to_visit;
  if (root.grad_fn) to_visit.push_back(root.grad_fn.get());
  while (!to_visit.empty()) {
    node<T>* n = to_visit.back();
    to_visit.pop_back();
    if (!walk.seen.insert(n).second) continue;
    if (n->released) throw freed_graph_error(n->name(), n->released);
    if (walk.check_runnable) n->check_runnable();
    if (n->leads_across()) n->visit_across(walk.across);
    for (const edge<T>& e : n->inputs()) {
      if (walk.on_tensor) walk.on_tensor(e.input);
      if (e.fn) to_visit.push_back(e.fn.get());
    }
  }
}

// Walks the graphs behind the casts in walk.across, and those their casts lead to. A template, so that a translation
// unit that walks no graph does not compile the walks of both scalar types.
template <class Walk = graph_walk>
void walk_graphs_across(Walk& walk) {
  walk.across.drain([&walk](auto& source) { walk_one_graph(source, walk); });
}

// Hands walk.on_tensor the address of every tensor that the graph which produced `root` reads,
// root included, following casts into graphs of another scalar type (so the tensors are known
// by address only). Throws graph_error for a part that an earlier backward freed and, with
// walk.check_runnable, for a node that cannot run (an input changed in place): what a backward
// checks before it changes anything.
template <class T>
void walk_graph(tensor_impl<T>& root, graph_walk& walk) {
  const graph_lock lock;
  walk_one_graph(root, walk);
  walk_graphs_across(walk);
}

}  // namespace fusegrad::detail
