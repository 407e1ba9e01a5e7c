// tape/graph_lock.hpp -- graph_lock: one backward at a time, and deferred values computed once.
#pragma once

#include <fusegrad/tape/sleeping_lock.hpp>

namespace fusegrad::detail {

// A backward writes its bookkeeping into the nodes it runs (the gradient arriving at each,
// how many consumers it still waits for) and adds into the leaves' gradients. Two backwards
// that share a node or a leaf, on two threads, would mix those numbers. So every backward,
// and every computation of a deferred value (which a backward may also write), holds this
// process-wide lock: backwards from several threads run one after the other, while
// recording, and reading values already computed, run in parallel. Uncontended, it costs a backward two atomic
// operations once the process runs a second thread, and two plain stores before (single_threaded.hpp). A thread that
// holds it may take it again: a deferred value read inside a backward, a graph released by one. Default visibility: a
// program whose shared libraries are built with hidden symbols still has one lock, not one per library.
class [[gnu::visibility("default")]] graph_lock {
 public:
  graph_lock() {
    if (depth() == 0) the_lock().lock();
    ++depth();
  }
  ~graph_lock() {
    if (--depth() == 0) the_lock().unlock();
  }
  graph_lock(const graph_lock&) = delete;
  graph_lock& operator=(const graph_lock&) = delete;

 private:
  // Constant-initialised (no guard on each use) and trivially destructible: a tensor that is a static object may
  // release its graph after the other statics are gone.
  static sleeping_lock& the_lock() noexcept {
    static constinit sleeping_lock lock;
    return lock;
  }
  static int& depth() noexcept {
    thread_local constinit int held = 0;  // how many graph_locks this thread holds
    return held;
  }
};

}  // namespace fusegrad::detail
