// detail/message_text.hpp -- the text of an error message, built by constexpr code that runs at compile time as well as
// at run time.
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <string_view>

namespace fusegrad::detail {

/// A string of fixed capacity for messages that constexpr functions word (einsum's subscripts
/// errors). std::string would do at run time, but clang 14 with libstdc++ 12 cannot evaluate
/// std::string in a constant expression. A text longer than the capacity keeps its first
/// `capacity - 3` characters and ends in "...".
class message_text {
 public:
  static constexpr std::size_t capacity = 512;

  constexpr message_text() = default;
  constexpr message_text(std::string_view text) { *this += text; }  // NOLINT: implicit, as std::string's is
  constexpr message_text(const char* text) : message_text(std::string_view(text)) {}  // NOLINT: likewise

  constexpr message_text& operator+=(char c) {
    if (size_ < capacity)
      chars_[size_++] = c;
    else  // full: the last three characters become "..."
      for (std::size_t k = capacity - 3; k < capacity; ++k) chars_[k] = '.';
    return *this;
  }
  constexpr message_text& operator+=(std::string_view text) {
    for (const char c : text) *this += c;
    return *this;
  }
  friend constexpr message_text operator+(message_text a, std::string_view b) { return a += b; }

  [[nodiscard]] constexpr bool empty() const noexcept { return size_ == 0; }
  [[nodiscard]] constexpr std::size_t size() const noexcept { return size_; }
  [[nodiscard]] constexpr std::string_view view() const noexcept { return {chars_.data(), size_}; }
  [[nodiscard]] std::string str() const { return std::string(view()); }

 private:
  std::array<char, capacity> chars_{};
  std::size_t size_ = 0;
};

}  // namespace fusegrad::detail
