// tape/staged_grads.hpp -- a staged backward's gradients (DetectAnomalyGuard, fg::grad), added in two calls.
#pragma once

#include <utility>

namespace fusegrad::detail {

// A staged backward's gradients are added to their tensors in two calls, so that every gradient changes or none
// does: prepare settles what reads an existing gradient and makes the memory of each first gradient (either may
// throw; each entry keeps its memory in `fresh`), then commit adds them, which cannot throw. Out of line: the usual
// backward never runs them, and they stay out of the inlining of its loop.
template <class StagedGrads>
[[gnu::noinline]] void prepare_staged_grads(StagedGrads& staged_grads) {
  for (auto& [t, g] : staged_grads) t->settle_grad_readers();
  for (auto& [t, g] : staged_grads) g.fresh = t->fresh_grad();
}
template <class StagedGrads>
[[gnu::noinline]] void commit_staged_grads(StagedGrads& staged_grads) noexcept {
  for (auto& [t, g] : staged_grads) t->commit_grad(g.values.data(), std::move(g.fresh));
}

}  // namespace fusegrad::detail
