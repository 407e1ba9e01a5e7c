// tape/typed_backward_pass.hpp -- the pass of a backward through the graph of one scalar type: Kahn's algorithm over
// its nodes, iterative, with what a failure part-way must undo.
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <unordered_map>
#include <vector>

#include <fusegrad/detail/buffer.hpp>
#include <fusegrad/detail/random_numbers.hpp>
#include <fusegrad/error.hpp>
#include <fusegrad/tape/backward_pass.hpp>
#include <fusegrad/tape/check_finite.hpp>
#include <fusegrad/tape/grad_mode.hpp>
#include <fusegrad/tape/gradient_capture.hpp>
#include <fusegrad/tape/node.hpp>
#include <fusegrad/tape/release_graph.hpp>
#include <fusegrad/tape/staged_grads.hpp>
#include <fusegrad/tape/tensor_impl.hpp>
#include <fusegrad/tape/walk_graph.hpp>

namespace fusegrad::detail {

// The pass through the graph of scalar type T (tape/backward_pass.hpp). The caller holds graph_lock
// from run() to finish(). `started_by_cast` is set for the passes a cast starts (node::pass_across):
// the pass that started them has checked the graphs they run already.
template <class T>
class typed_backward_pass final : public backward_pass {
 public:
  typed_backward_pass(std::span<const backward_root<T>> roots, bool retain_graph, gradient_capture<T>* capture,
                      bool started_by_cast)
      : roots_(roots), retain_graph_(retain_graph), started_by_cast_(started_by_cast), capture_(capture) {}
  typed_backward_pass(const typed_backward_pass&) = delete;
  typed_backward_pass& operator=(const typed_backward_pass&) = delete;

  std::unique_ptr<backward_pass> run() override;
  void finish() override;

 private:
  // Should anything throw (an anomaly, an allocation) before the pass finishes, no node keeps a
  // gradient from it: a later backward must start clean. A pass that finishes leaves every node
  // clean already (each ran once and dropped its gradient). Every visited node stays alive until
  // the roots are gone: a root holds its node, each node its producers.
  struct reset_on_failure {
    node<T>* visited = nullptr;
    bool completed = false;
    reset_on_failure() = default;
    reset_on_failure(const reset_on_failure&) = delete;
    reset_on_failure& operator=(const reset_on_failure&) = delete;
    ~reset_on_failure() {
      if (completed) return;
      for (node<T>* n = visited; n; n = n->next_visited) {
        n->drop_grad();
        n->waiting = 0;
      }
    }
  };
  // A tensor's gradient collected aside by a staged backward (DetectAnomalyGuard, fg::grad).
  struct staged_grad {
    ref<tensor_impl<T>> tensor;  // held: releasing the graph may drop every other reference
    small_buffer<T> values;
    ref<tensor_storage<T>> fresh;  // the memory of a first gradient, made before any is added (staged_grads.hpp)
  };
  // Where a node's input gradients go: on the stack for the usual handful of inputs.
  static constexpr std::size_t inline_inputs = 8;

  // The steps of run(), in order. The first three are compiled into run(): a backward over a few scalars is short
  // enough that their calls, and the registers they save, would show.
  [[gnu::always_inline]] inline node<T>* find_and_check();
  [[gnu::always_inline]] inline node<T>* seed_roots(node<T>* top);
  [[gnu::always_inline]] inline void run_node(node<T>& n, node<T>*& ready);
  void stage_leaf_roots();
  T* staged_destination(tensor_impl<T>* t);

  std::span<const backward_root<T>> roots_;
  bool retain_graph_;
  bool started_by_cast_;
  bool crosses_ = false;  // whether casts lead out of the graph
  bool staged_ = false;   // whether tensors' gradients are collected aside (staged_grads_) until the pass finishes
  gradient_capture<T>* capture_;
  std::unordered_map<tensor_impl<T>*, staged_grad> staged_grads_;
  std::vector<T*> more_destinations_;  // a node's destinations when it has more than inline_inputs inputs
  // A leaf that stopped requiring grad after the graph was recorded takes no gradient, as in PyTorch: its share goes
  // to zeroed memory that is dropped. Empty, it allocates nothing.
  std::vector<std::unique_ptr<T[]>> discarded_;
  std::vector<ref<node<T>>> crossings_;  // the casts this pass ran: they lead into another scalar type's graph
  reset_on_failure reset_;
};

template <class T>
std::unique_ptr<backward_pass> typed_backward_pass<T>::run() {
  node<T>* const top = find_and_check();
  reset_.visited = top;
  // Anomaly mode can stop a backward half-way (a NaN found in some node's gradient): the
  // tensors' gradients (leaves, retain_grad) are then collected aside and added only once
  // every node has run, so a failed backward leaves them as they were. A functional backward
  // collects them aside too, and hands over the wanted ones instead of adding any.
  staged_ = anomaly_detection || capture_;
  // Nodes run once every consumer of their output has sent its gradient, from the roots down.
  for (node<T>* ready = seed_roots(top); ready;) {
    node<T>& n = *ready;
    ready = n.next_ready;
    run_node(n, ready);
  }
  if (staged_) stage_leaf_roots();
  // What may throw in adding this pass's staged gradients happens before the graphs of another scalar type run, since
  // they add theirs as they finish. (A backward that is not staged adds its gradients as it runs.)
  if (!capture_ && !staged_grads_.empty()) prepare_staged_grads(staged_grads_);
  // The graphs of another scalar type that casts lead into run next, before this pass's gradients are added: should
  // their backward fail (an anomaly), nothing has changed.
  if (!crossings_.empty()) [[unlikely]]
    return crossings_.front()->pass_across(crossings_, capture_);
  return nullptr;
}

// Finds the nodes the roots lead to and counts, for each, how many edges inside this graph lead to it; returns the
// first one found, the head of the visited list. The visited list is its own work list: a node found is appended,
// and the walk reaches it in turn. Everything that can make a node refuse to run (freed by an earlier backward, an
// input changed in place) is checked here, before any gradient moves, so such a backward changes nothing: across a
// cast too (walk_graphs_across).
template <class T>
node<T>* typed_backward_pass<T>::find_and_check() {
  // Each backward marks the nodes it reaches with its own pass number (unique across
  // threads), so no mark needs clearing afterwards. A program whose shared libraries each
  // hold their own copy of this counter has the copies at different addresses, and each count
  // starts at its own address, scrambled: the chance that two copies' numbers meet within k
  // backwards is about k / 2^63.
  static std::atomic<std::uint64_t> passes{mix64(reinterpret_cast<std::uintptr_t>(&passes))};
  const std::uint64_t pass = passes.fetch_add(1, std::memory_order_relaxed) + 1;
  node<T>* top = nullptr;
  node<T>* last_found = nullptr;
  const auto found = [&](node<T>* n) {
    if (n->pass == pass) return;
    n->pass = pass;
    n->waiting = 0;
    n->next_visited = nullptr;
    (last_found ? last_found->next_visited : top) = n;
    last_found = n;
  };
  for (const backward_root<T>& root : roots_)
    if (root.tensor->grad_fn) found(root.tensor->grad_fn.get());

  // A graph that casts lead out of may lead back in (x -> x.to<float>() -> .to<double>() + x):
  // a node can then run in more than one pass, each with its share of the gradient, so no
  // node is released before the last pass is over (release_graph).
  bool crosses = false;
  std::optional<graph_walk> cast_walk;  // one walk for every cast: each node of the other graphs checked once
  for (node<T>* n = top; n; n = n->next_visited) {
    if (n->released) [[unlikely]]
      throw freed_graph_error(n->name(), n->released);
    n->check_runnable();
    if (n->leads_across()) [[unlikely]] {
      crosses = true;
      if (!started_by_cast_) {
        if (!cast_walk) cast_walk.emplace().check_runnable = true;
        n->visit_across(cast_walk->across);
      }
    }
    for (edge<T>& e : n->inputs()) {
      if (node<T>* producer = e.fn.get()) {
        found(producer);
        ++producer->waiting;
      }
    }
  }
  if (cast_walk) walk_graphs_across(*cast_walk);
  crosses_ = crosses;
  return top;
}

// Adds each root's seed to its node's gradient; returns the nodes ready to run, a stack linked through next_ready.
template <class T>
node<T>* typed_backward_pass<T>::seed_roots(node<T>* top) {
  if (roots_.size() == 1 && top) {
    std::copy(roots_[0].seed, roots_[0].seed + top->size, top->hold_grad());
    top->next_ready = nullptr;
    return top;
  }
  node<T>* ready = nullptr;
  for (const backward_root<T>& root : roots_) {
    node<T>* n = root.tensor->grad_fn.get();
    if (!n) continue;
    const bool queued = n->has_grad;  // the same root twice: its seeds add up
    const auto size = static_cast<Eigen::Index>(n->size);
    Eigen::Map<array_t<T>>(n->grad_destination(), size) += Eigen::Map<const array_t<T>>(root.seed, size);
    if (!queued && n->waiting == 0) {  // a root that another root reads runs after it
      n->next_ready = ready;
      ready = n;
    }
  }
  return ready;
}

// Runs one node whose consumers have all sent their gradient: its VJPs add its inputs' gradients straight into their
// destinations (a leaf's grad, or the buffer of the node that produced the input); the first to send to a destination
// may write it instead (takes_unfilled_grads), as PyTorch's first gradient is taken, not added. Then the node's own
// gradient goes where it is kept (retain_grad, a capture), and the producers that have now heard from every consumer
// join `ready`.
template <class T>
void typed_backward_pass<T>::run_node(node<T>& n, node<T>*& ready) {
  const std::span<edge<T>> inputs = n.inputs();
  std::array<T*, inline_inputs> inline_destinations;
  T** destinations = inline_destinations.data();
  if (inputs.size() > inline_inputs) [[unlikely]] {
    more_destinations_.resize(inputs.size());
    destinations = more_destinations_.data();
  }
  // A node that can write an input's gradient whole is handed, where nothing has been sent yet, memory without
  // zeros (bit k of `unfilled`).
  std::uint64_t unfilled = 0;
  const bool takes_unfilled = !staged_ && n.takes_unfilled_grads();
  tensor_impl<T>* out = n.output.load(std::memory_order_relaxed);
  T* deferred = out && out->value_pending.load(std::memory_order_relaxed) ? out->storage->data : nullptr;
  bool sending = false;  // whether the node's VJPs have started writing gradients
  try {                  // finding a destination may throw too (settling a deferred value that reads a gradient)
    for (std::size_t k = 0; k < inputs.size(); ++k) {
      const edge<T>& e = inputs[k];
      if (!e.fn && !e.input->requires_grad && !capture_) [[unlikely]] {
        destinations[k] = discarded_.emplace_back(std::make_unique<T[]>(e.input->extents.size())).get();
      } else if (takes_unfilled && k < 64) {
        bool made = false;
        destinations[k] = e.fn ? e.fn->grad_destination_unfilled(made) : e.input->grad_destination_unfilled(made);
        if (made) unfilled |= std::uint64_t(1) << k;
      } else {
        destinations[k] =
            e.fn ? e.fn->grad_destination() : (staged_ ? staged_destination(e.input) : e.input->grad_destination());
      }
    }
    sending = true;
    n.backward(n.grad_data(), std::span<T* const>(destinations, inputs.size()), unfilled, deferred);
  } catch (...) {
    // A tensor's gradient made for this node holds no values: the tensor goes back to having none.
    for (std::size_t k = 0; k < inputs.size() && k < 64; ++k)
      if ((unfilled >> k & 1) && !inputs[k].fn) inputs[k].input->grad = {};
    // Outside a staged backward the node may have added part of its gradients: run again, it would add them twice.
    // Its output's value, if still deferred, is computed first (it reads no gradient), so that it can be read.
    if (sending && !staged_) {
      if (deferred && out->value_pending.load(std::memory_order_relaxed)) try {
          n.compute_value(deferred);
          out->value_pending.store(false, std::memory_order_release);
          n.value_settled();
        } catch (...) {  // the value stays deferred, to a released node: reading it says so
        }
      n.release_saved();
      n.released = released_after_failure;
    }
    throw;
  }
  if (deferred) {
    out->value_pending.store(false, std::memory_order_release);
    n.value_settled();
  }
  if (n.leads_across()) [[unlikely]]
    crossings_.emplace_back(&n);
  if (out && (capture_ ? capture_->wants(out) : out->retains_grad)) {
    if (staged_) {
      const Eigen::Map<const array_t<T>> g(n.grad_data(), static_cast<Eigen::Index>(n.size));
      if (T* destination = staged_destination(out)) Eigen::Map<array_t<T>>(destination, g.size()) += g;
    } else {
      out->accumulate_grad(n.grad_data());
    }
  }
  if (anomaly_detection)
    for (std::size_t k = 0; k < inputs.size(); ++k) {
      const edge<T>& e = inputs[k];
      check_finite(destinations[k], e.fn ? e.fn->size : e.input->extents.size(),
                   n.name() + " = " + n.expression() + " (backward)");
    }
  for (edge<T>& e : inputs)
    if (e.fn && --e.fn->waiting == 0) {
      e.fn->next_ready = ready;
      ready = e.fn.get();
    }
  n.drop_grad();
  // A staged backward (DetectAnomalyGuard, fg::grad) may still fail at a later node: it releases the graph once it
  // has completed, so a failed one leaves the graph as it found it. Its nodes keep what they saved until then.
  if (!retain_graph_ && !crosses_ && !staged_) {
    n.release_saved();
    n.released = released_after_backward;
  }
}

// Roots that are leaves, in a staged backward: their seeds are staged with the rest (a capture takes them).
template <class T>
void typed_backward_pass<T>::stage_leaf_roots() {
  for (const backward_root<T>& root : roots_) {
    tensor_impl<T>* t = root.tensor;
    if (t->grad_fn) continue;
    if (capture_) {
      if (capture_->wants(t)) {
        small_buffer<T> g(t->extents.size());
        std::copy_n(root.seed, t->extents.size(), g.data());
        capture_->add(t, std::move(g));
      }
    } else if (t->requires_grad) {
      if (T* destination = staged_destination(t))
        Eigen::Map<array_t<T>>(destination, static_cast<Eigen::Index>(t->extents.size())) +=
            Eigen::Map<const array_t<T>>(root.seed, static_cast<Eigen::Index>(t->extents.size()));
    }
  }
}

// Where a staged backward adds a tensor's gradient: its entry in staged_grads_, made zeroed on first use. Null for an
// output that is being destroyed on another thread (its destructor waits for this backward): nobody can read its
// gradient. A leaf is held by the nodes reading it.
template <class T>
T* typed_backward_pass<T>::staged_destination(tensor_impl<T>* t) {
  auto it = staged_grads_.find(t);
  if (it == staged_grads_.end()) {
    ref<tensor_impl<T>> held = ref<tensor_impl<T>>::try_share(t);
    if (!held) return nullptr;
    it = staged_grads_.emplace(t, staged_grad{std::move(held), small_buffer<T>(t->extents.size(), T(0)), {}}).first;
  }
  return it->second.values.data();
}

template <class T>
void typed_backward_pass<T>::finish() {
  // Roots that are leaves last, once the passes across casts have finished (should one fail, nothing has changed),
  // where the backward is not staged.
  if (!staged_)
    for (const backward_root<T>& root : roots_)
      if (!root.tensor->grad_fn && root.tensor->requires_grad) root.tensor->accumulate_grad(root.seed);
  if (capture_) {
    for (auto& [t, g] : staged_grads_)
      if (capture_->wants(t)) capture_->add(t, std::move(g.values));
  } else if (!staged_grads_.empty()) {
    commit_staged_grads(staged_grads_);
  }
  reset_.completed = true;
  if ((crosses_ || staged_) && !retain_graph_) release_graph(roots_);
}

}  // namespace fusegrad::detail
