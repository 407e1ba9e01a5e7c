// tape/walk_graph.hpp -- walk_graph: every tensor a recorded graph reads, across casts between scalar types.
#pragma once

#include <functional>
#include <unordered_set>
#include <vector>

#include <fusegrad/tape/graph_lock.hpp>
#include <fusegrad/tape/node.hpp>
#include <fusegrad/tape/tensor_impl.hpp>

namespace fusegrad::detail {

// Hands `on_tensor` the address of every tensor that the graph which produced `root` reads,
// root included, following casts into graphs of another scalar type (so the tensors are known
// by address only). Throws graph_error for a part that an earlier backward freed and, with
// `check_runnable`, for a node that cannot run (an input changed in place): what a backward
// checks before it changes anything.
template <class T>
void walk_graph(tensor_impl<T>& root, const std::function<void(const void*)>& on_tensor, bool check_runnable) {
  const graph_lock lock;
  on_tensor(&root);
  std::unordered_set<node<T>*> seen;
  std::vector<node<T>*> to_visit;
  if (root.grad_fn) to_visit.push_back(root.grad_fn.get());
  while (!to_visit.empty()) {
    node<T>* n = to_visit.back();
    to_visit.pop_back();
    if (!seen.insert(n).second) continue;
    if (n->released) throw freed_graph_error(n->name());
    if (check_runnable) n->check_runnable();
    if (n->input_count == 0) n->walk_across(on_tensor, check_runnable);
    for (const edge<T>& e : n->inputs()) {
      on_tensor(e.input);
      if (e.fn) to_visit.push_back(e.fn.get());
    }
  }
}

}  // namespace fusegrad::detail
