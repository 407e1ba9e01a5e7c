// tape/ref_counted.hpp -- intrusive reference counting whose destruction is iterative, never recursive.
#pragma once

#include <atomic>
#include <concepts>
#include <cstdint>
#include <utility>
#include <vector>

#include <fusegrad/detail/per_thread.hpp>
#include <fusegrad/tape/pool.hpp>

namespace fusegrad::detail {

// Graph objects (tensor storage, tensors, nodes) count their own references: one
// allocation per object, no control block. Dropping the last reference to the head of a
// 1,000,000-node chain would destroy the chain recursively and overflow the stack, so
// destruction is deferred: an object whose count reaches zero while another is being
// destroyed is queued, and the outermost release drains the queue in a loop.
class ref_counted {
 public:
  ref_counted() = default;
  ref_counted(const ref_counted&) = delete;
  ref_counted& operator=(const ref_counted&) = delete;
  virtual ~ref_counted() = default;

  // Graph objects come from the per-thread pool (tape/pool.hpp).
  static void* operator new(std::size_t bytes) { return object_pool::allocate(bytes); }
  static void operator delete(void* p, std::size_t bytes) noexcept { object_pool::deallocate(p, bytes); }

  void retain() noexcept { refs_.fetch_add(1, std::memory_order_relaxed); }

  void release() noexcept {
    if (refs_.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
    struct destruction_queue {
      std::vector<ref_counted*> pending;
      bool draining = false;
    };
    destruction_queue* queue = per_thread<destruction_queue>();
    if (!queue) {  // the thread's queue is gone (a global tensor after main): recurse, as a last resort
      delete this;
      return;
    }
    if (queue->draining) {  // inside another destruction: queue, do not recurse
      try {
        queue->pending.push_back(this);
      } catch (...) {  // out of memory for the queue itself: fall back to recursion
        delete this;
      }
      return;
    }
    queue->draining = true;
    delete this;
    while (!queue->pending.empty()) {
      ref_counted* next = queue->pending.back();
      queue->pending.pop_back();
      delete next;
    }
    queue->draining = false;
  }

 private:
  std::atomic<std::uint32_t> refs_{0};
};

// A strong reference to a ref_counted T.
template <class T>
class ref {
 public:
  ref() noexcept = default;
  ref(std::nullptr_t) noexcept {}
  explicit ref(T* p) noexcept : p_(p) {
    if (p_) p_->retain();
  }
  ref(const ref& o) noexcept : ref(o.p_) {}
  ref(ref&& o) noexcept : p_(std::exchange(o.p_, nullptr)) {}
  template <std::derived_from<T> U>
  ref(const ref<U>& o) noexcept : ref(static_cast<T*>(o.get())) {}
  ref& operator=(ref o) noexcept {
    std::swap(p_, o.p_);
    return *this;
  }
  ~ref() {
    if (p_) p_->release();
  }

  template <class... Args>
  static ref make(Args&&... args) {
    return ref(new T(std::forward<Args>(args)...));
  }

  [[nodiscard]] T* get() const noexcept { return p_; }
  T* operator->() const noexcept { return p_; }
  T& operator*() const noexcept { return *p_; }
  explicit operator bool() const noexcept { return p_ != nullptr; }
  friend bool operator==(const ref& a, const ref& b) noexcept { return a.p_ == b.p_; }

 private:
  T* p_ = nullptr;
};

}  // namespace fusegrad::detail
