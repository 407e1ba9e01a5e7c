// tape/staged_grads.hpp -- a staged backward's gradients (DetectAnomalyGuard, fg::grad), added in two steps.
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

#include <fusegrad/tape/ref_counted.hpp>
#include <fusegrad/tape/tensor_storage.hpp>

namespace fusegrad::detail {

// A staged backward's gradients are added to their tensors in two steps, so that every gradient changes or none
// does: first what may throw (a deferred value that reads a gradient, the memory of a first gradient), then the
// commit, which cannot. Out of line: the usual backward never runs them, and inlined they took an inlining from that
// backward's loop.
template <class T, class StagedGrads>
[[gnu::noinline]] std::vector<ref<tensor_storage<T>>> prepare_staged_grads(StagedGrads& staged_grads) {
  std::vector<ref<tensor_storage<T>>> fresh;
  fresh.reserve(staged_grads.size());
  for (auto& [t, g] : staged_grads) t->settle_grad_readers();
  for (auto& [t, g] : staged_grads) fresh.push_back(t->fresh_grad());
  return fresh;
}
template <class T, class StagedGrads>
[[gnu::noinline]] void commit_staged_grads(StagedGrads& staged_grads, std::vector<ref<tensor_storage<T>>>& fresh) {
  std::size_t k = 0;
  for (auto& [t, g] : staged_grads) t->commit_grad(g.values.data(), std::move(fresh[k++]));
}

}  // namespace fusegrad::detail
