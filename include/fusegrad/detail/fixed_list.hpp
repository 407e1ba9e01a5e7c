// detail/fixed_list.hpp -- fixed_list: a list whose capacity is known at compile time.
#pragma once

#include <array>
#include <cstddef>
#include <span>
#include <utility>

namespace fusegrad::detail {

// `count`, which is never above Capacity, with the compiler told so: loops over a list of one
// or two items then unroll into straight code.
template <std::size_t Capacity, class N>
[[nodiscard]] constexpr N at_most(N count) noexcept {
#if defined(_MSC_VER)
  __assume(count <= Capacity);
#else
  if (count > Capacity) __builtin_unreachable();
#endif
  return count;
}

// A fixed-capacity list, for lists whose length has a bound known at compile time: an expression's tensors are
// at most its leaf count, an einsum term's labels at most the labels there are. Filling one allocates nothing.
template <class V, std::size_t Capacity>
struct fixed_list {
  std::array<V, Capacity> items{};
  std::size_t count = 0;

  void push_back(V v) { items[count++] = std::move(v); }
  void append(std::span<const V> values) {
    for (const auto& v : values) push_back(v);
  }
  [[nodiscard]] bool contains(const V& v) const {  // a plain loop: std::find stays a call here
    for (std::size_t k = 0; k < size(); ++k)
      if (items[k] == v) return true;
    return false;
  }
  [[nodiscard]] V& operator[](std::size_t k) { return items[k]; }
  [[nodiscard]] const V& operator[](std::size_t k) const { return items[k]; }
  [[nodiscard]] V* data() { return items.data(); }
  [[nodiscard]] const V* data() const { return items.data(); }
  [[nodiscard]] V* begin() { return items.data(); }
  [[nodiscard]] V* end() { return items.data() + size(); }
  [[nodiscard]] const V* begin() const { return items.data(); }
  [[nodiscard]] const V* end() const { return items.data() + size(); }
  [[nodiscard]] std::span<const V> span() const { return {items.data(), size()}; }
  [[nodiscard]] std::size_t size() const { return at_most<Capacity>(count); }
  [[nodiscard]] bool empty() const { return count == 0; }

  friend bool operator==(const fixed_list& a, const fixed_list& b) {  // a plain loop: memcmp stays a call
    if (a.size() != b.size()) return false;
    for (std::size_t k = 0; k < a.size(); ++k)
      if (!(a.items[k] == b.items[k])) return false;
    return true;
  }
};

}  // namespace fusegrad::detail
