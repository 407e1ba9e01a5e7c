// tape/grad_mode.hpp -- per-thread switches: whether operations are recorded, whether anomalies are hunted.
#pragma once

namespace fusegrad {

namespace detail {
// Per thread, so independent graphs can be built in parallel without locks.
inline thread_local bool grad_enabled = true;
inline thread_local bool anomaly_detection = false;
}  // namespace detail

/// Whether operations on tensors that require grad are recorded on this thread.
[[nodiscard]] inline bool is_grad_enabled() noexcept { return detail::grad_enabled; }

/// Records nothing on this thread while alive (evaluation, optimiser steps). Restores the
/// previous mode on destruction, so guards nest. Example: examples/demo.cpp.
class NoGradGuard {
 public:
  NoGradGuard() noexcept : previous_(detail::grad_enabled) { detail::grad_enabled = false; }
  ~NoGradGuard() { detail::grad_enabled = previous_; }
  NoGradGuard(const NoGradGuard&) = delete;
  NoGradGuard& operator=(const NoGradGuard&) = delete;

 private:
  bool previous_;
};

/// Records again inside a NoGradGuard's scope, until destroyed.
class EnableGradGuard {
 public:
  EnableGradGuard() noexcept : previous_(detail::grad_enabled) { detail::grad_enabled = true; }
  ~EnableGradGuard() { detail::grad_enabled = previous_; }
  EnableGradGuard(const EnableGradGuard&) = delete;
  EnableGradGuard& operator=(const EnableGradGuard&) = delete;

 private:
  bool previous_;
};

/// While alive, every recorded operation checks its forward value and its gradients for
/// NaN or infinity and throws value_error naming the operation that produced them.
class DetectAnomalyGuard {
 public:
  DetectAnomalyGuard() noexcept : previous_(detail::anomaly_detection) { detail::anomaly_detection = true; }
  ~DetectAnomalyGuard() { detail::anomaly_detection = previous_; }
  DetectAnomalyGuard(const DetectAnomalyGuard&) = delete;
  DetectAnomalyGuard& operator=(const DetectAnomalyGuard&) = delete;

 private:
  bool previous_;
};

}  // namespace fusegrad
