// detail/buffer.hpp -- small_buffer: values in place when few, in a recycled block when many.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

#include <fusegrad/detail/block_cache.hpp>

namespace fusegrad::detail {

// Heap memory for values: blocks of 1 KiB and up through block_cache (recycled per thread),
// smaller ones from malloc. `bytes` becomes the block's real size, which freeing it needs back.
inline void* allocate_heap_values(std::size_t& bytes) {
  return bytes >= block_cache::min_bytes ? block_cache::allocate(bytes) : allocate_values(bytes);
}
inline void free_heap_values(void* p, std::size_t bytes) noexcept {
  if (bytes >= block_cache::min_bytes)
    block_cache::deallocate(p, bytes);
  else
    free_values(p, bytes);
}

// A std::vector's allocator for values: memory that runs out is a memory_error, as for every other buffer of values.
template <class T>
struct values_allocator {
  using value_type = T;
  values_allocator() = default;
  template <class U>
  values_allocator(const values_allocator<U>& /*other*/) noexcept {}  // NOLINT(google-explicit-constructor)
  [[nodiscard]] T* allocate(std::size_t n) { return static_cast<T*>(allocate_values(bytes_of_values<T>(n))); }
  void deallocate(T* p, std::size_t n) noexcept { free_values(p, n * sizeof(T)); }
  friend bool operator==(const values_allocator&, const values_allocator&) noexcept { return true; }
};
template <class T>
using value_vector = std::vector<T, values_allocator<T>>;

// Values of a tensor, a gradient, or an array a sweep keeps for one call: up to
// `inline_capacity` elements in place (scalars, small vectors: no allocation), more on the
// heap, recycled through block_cache from 1 KiB up. Elements are left uninitialised: every user
// writes before it reads.
template <class T>
class small_buffer {
  static_assert(std::is_trivially_destructible_v<T> && std::is_trivially_copyable_v<T>,
                "small_buffer holds arithmetic scalars (implicit-lifetime types) only");

 public:
  static constexpr std::size_t inline_capacity = 4;

  small_buffer() = default;
  explicit small_buffer(std::size_t n) { resize(n); }
  small_buffer(std::size_t n, T fill) {
    resize(n);
    std::fill_n(data_, n, fill);
  }
  small_buffer(small_buffer&& other) noexcept { take(other); }
  small_buffer& operator=(small_buffer&& other) noexcept {
    if (this != &other) {
      free_heap();
      take(other);
    }
    return *this;
  }
  small_buffer(const small_buffer&) = delete;
  small_buffer& operator=(const small_buffer&) = delete;
  ~small_buffer() { free_heap(); }

  void resize(std::size_t n) {
    if (n <= inline_capacity && capacity_bytes_ == 0) {  // the common case of small tensors, inlined
      data_ = inline_.data();
      size_ = n;
      return;
    }
    resize_slow(n);
  }
  void clear() noexcept {
    free_heap();
    data_ = inline_.data();
    size_ = 0;
  }
  [[nodiscard]] T* data() noexcept { return data_; }
  [[nodiscard]] const T* data() const noexcept { return data_; }
  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  [[nodiscard]] T& operator[](std::size_t i) noexcept { return data_[i]; }
  [[nodiscard]] const T& operator[](std::size_t i) const noexcept { return data_[i]; }

 private:
  // Takes other's values (its block, or a copy of its inline ones) and leaves it empty; this holds no block.
  void take(small_buffer& other) noexcept {
    size_ = other.size_;
    capacity_bytes_ = std::exchange(other.capacity_bytes_, 0);
    if (capacity_bytes_ == 0) {  // inline values: copy them, and point at our own
      inline_ = other.inline_;
      data_ = inline_.data();
    } else {
      data_ = other.data_;
    }
    other.data_ = other.inline_.data();
    other.size_ = 0;
  }
  void resize_slow(std::size_t n) {
    if (n <= inline_capacity) {
      free_heap();
      data_ = inline_.data();
    } else if (std::size_t bytes = bytes_of_values<T>(n); bytes > capacity_bytes_ || bytes < capacity_bytes_ / 2) {
      T* const fresh = static_cast<T*>(allocate_heap_values(bytes));  // first: should it fail, nothing has changed
      free_heap();
      data_ = fresh;
      capacity_bytes_ = bytes;
    }
    size_ = n;
  }
  void free_heap() noexcept {
    if (capacity_bytes_ != 0) release_heap();  // the inline case stays a test, inlined
  }
  void release_heap() noexcept {
    free_heap_values(data_, capacity_bytes_);
    capacity_bytes_ = 0;
  }

  std::array<T, inline_capacity> inline_{};
  T* data_ = inline_.data();
  std::size_t size_ = 0;
  std::size_t capacity_bytes_ = 0;  // of the heap block; 0 when the values are inline
};

}  // namespace fusegrad::detail
