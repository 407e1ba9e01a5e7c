// detail/per_thread.hpp -- per_thread<T>(): this thread's T, or nullptr once the thread has destroyed it.
#pragma once

namespace fusegrad::detail {

// The per-thread caches (object pool, block cache, destruction queue) are thread_local
// objects, destroyed when their thread ends, or for the main thread after main returns.
// Memory can still be freed after that: a global tensor dies with the other statics. So
// each cache is reached through a pointer that becomes null once the cache is gone, and
// callers then fall back to the system allocator or to plain recursion.
template <class T>
T* per_thread() {
  thread_local bool gone = false;  // trivially destructible: readable until the thread ends
  if (gone) return nullptr;
  struct holder {
    T value;
    ~holder() { gone = true; }
  };
  thread_local holder instance{};
  return &instance.value;
}

}  // namespace fusegrad::detail
