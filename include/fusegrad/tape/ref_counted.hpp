// tape/ref_counted.hpp -- intrusive reference counting, and ref: the strong reference to a counted object.
#pragma once

#include <atomic>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <utility>

#include <fusegrad/tape/pool.hpp>
#include <fusegrad/tape/single_threaded.hpp>

namespace fusegrad::detail {

// Graph objects (tensor storage, tensors, nodes) count their own references: no control
// block, and no vtable for the count. The last release calls Derived::destroy(), which
// says how the object goes (deleted, or destroyed in the block it shares with others;
// a node queues itself so that freeing a long chain never recurses, tape/node.hpp). While the process runs one
// thread, counts change without locked instructions (single_threaded()).
template <class Derived>
class ref_counted {
 public:
  ref_counted() = default;
  ref_counted(const ref_counted&) = delete;
  ref_counted& operator=(const ref_counted&) = delete;

  // Graph objects come from the per-thread pool (tape/pool.hpp).
  static void* operator new(std::size_t bytes) { return object_pool::allocate(bytes); }
  static void operator delete(void* p, std::size_t bytes) noexcept { object_pool::deallocate(p, bytes); }

  void retain() noexcept {
    if (single_threaded())
      refs_.store(refs_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    else
      refs_.fetch_add(1, std::memory_order_relaxed);
  }
  void release() noexcept {
    std::uint32_t before;
    if (single_threaded()) {
      before = refs_.load(std::memory_order_relaxed);
      refs_.store(before - 1, std::memory_order_relaxed);
    } else {
      before = refs_.fetch_sub(1, std::memory_order_acq_rel);
    }
    if (before == 1) static_cast<Derived*>(this)->destroy();
  }

 protected:
  ~ref_counted() = default;

 private:
  template <class>
  friend class ref;
  // The first reference to a just-constructed object: a plain store, not a locked
  // read-modify-write (ref::adopt_new).
  void adopt() noexcept { refs_.store(1, std::memory_order_relaxed); }
  // Another reference, unless the count has already reached zero (ref::try_share).
  bool try_retain() noexcept {
    std::uint32_t n = refs_.load(std::memory_order_relaxed);
    while (n != 0)
      if (refs_.compare_exchange_weak(n, n + 1, std::memory_order_relaxed)) return true;
    return false;
  }

  // Four bytes: a derived class's first small members fill the rest of its eight.
  std::atomic<std::uint32_t> refs_{0};
};

// A strong reference to a counted T.
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
    return adopt_new(new T(std::forward<Args>(args)...));
  }
  // The first reference to a just-constructed object, which no reference holds yet.
  static ref adopt_new(T* p) noexcept {
    p->adopt();
    ref r;
    r.p_ = p;
    return r;
  }

  // A reference to an object that another thread may be destroying (its count at zero,
  // its destructor waiting for a lock this thread holds): null then, never a revival.
  static ref try_share(T* p) noexcept {
    ref r;
    if (p && p->try_retain()) r.p_ = p;
    return r;
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
