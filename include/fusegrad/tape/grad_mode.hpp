// tape/grad_mode.hpp -- per-thread switches: whether operations are recorded, whether anomalies are hunted.
#pragma once

namespace fusegrad {

namespace detail {
// Per thread, so independent graphs can be built in parallel without locks.
inline thread_local bool grad_enabled = true;
inline thread_local bool anomaly_detection = false;

inline bool& grad_enabled_flag() noexcept { return grad_enabled; }
inline bool& anomaly_detection_flag() noexcept { return anomaly_detection; }

// Sets a per-thread flag for its lifetime and restores the previous value, so guards nest.
template <bool& (*Flag)(), bool Value>
class scoped_flag {
 public:
  scoped_flag() noexcept : previous_(Flag()) { Flag() = Value; }
  ~scoped_flag() { Flag() = previous_; }
  scoped_flag(const scoped_flag&) = delete;
  scoped_flag& operator=(const scoped_flag&) = delete;

 private:
  bool previous_;
};
}  // namespace detail

/// Whether operations on tensors that require grad are recorded on this thread.
[[nodiscard]] inline bool is_grad_enabled() noexcept { return detail::grad_enabled; }

/// Records nothing on this thread while alive (evaluation, optimiser steps); guards nest.
/// Example: examples/dynamic_graph.cpp.
class NoGradGuard : detail::scoped_flag<detail::grad_enabled_flag, false> {};

/// Records again inside a NoGradGuard's scope, until destroyed.
class EnableGradGuard : detail::scoped_flag<detail::grad_enabled_flag, true> {};

/// While alive, every recorded operation checks its forward value and its gradients for
/// NaN or infinity and throws value_error naming the operation that produced them.
class DetectAnomalyGuard : detail::scoped_flag<detail::anomaly_detection_flag, true> {};

}  // namespace fusegrad
