// detail/per_thread.hpp -- per_thread<T>(): this thread's T, or nullptr once the thread has destroyed it.
#pragma once

namespace fusegrad::detail {

// The per-thread caches (object pool, block cache) are thread_local objects, destroyed
// when their thread ends, or for the main thread after main returns. Memory can still be
// freed after that: a global tensor dies with the other statics. So each cache is reached
// through a pointer that becomes null once the cache is gone, and callers then fall back
// to the system allocator.
template <class T>
T* per_thread() {
  // Trivial thread_locals need no initialisation guard: the fast path is one TLS load.
  thread_local constinit T* current = nullptr;
  thread_local constinit bool gone = false;
  if (current) [[likely]]
    return current;
  if (gone) return nullptr;
  struct holder {
    T value;
    ~holder() {
      current = nullptr;
      gone = true;
    }
  };
  thread_local holder instance{};
  current = &instance.value;
  return current;
}

}  // namespace fusegrad::detail
