// tape/stored_extents.hpp -- the extents a tensor keeps: one shared object for every scalar, a pooled copy otherwise.
#pragma once

#include <cstddef>
#include <new>
#include <type_traits>
#include <utility>

#include <fusegrad/shape/extents.hpp>
#include <fusegrad/tape/pool.hpp>

namespace fusegrad::detail {

// Extents as a tensor of the tape keeps them: a pointer, 8 bytes where Extents takes 80.
// Every scalar's point to one shared object (a taped scalar program records thousands of
// scalars), other tensors' to a pooled copy of their own. Read through a reference, as
// Extents are everywhere, so that reading a tensor's shape copies nothing.
class stored_extents {
  static_assert(std::is_trivially_destructible_v<Extents>);

 public:
  explicit stored_extents(const Extents& e)
      : extents_(e.rank() == 0 ? &scalar : ::new (object_pool::allocate(sizeof(Extents))) Extents(e)) {}
  stored_extents(const stored_extents& other) : stored_extents(other.get()) {}
  stored_extents(stored_extents&& other) noexcept : extents_(std::exchange(other.extents_, &scalar)) {}
  stored_extents& operator=(const stored_extents&) = delete;
  // Decided by rank, not by address: a program of several shared libraries may hold one
  // `scalar` per library, and a tensor made in one may die in another.
  ~stored_extents() {
    if (extents_->rank() != 0) object_pool::deallocate(const_cast<Extents*>(extents_), sizeof(Extents));
  }

  [[nodiscard]] const Extents& get() const noexcept { return *extents_; }
  [[nodiscard]] std::size_t size() const noexcept { return extents_->size(); }
  [[nodiscard]] std::size_t rank() const noexcept { return extents_->rank(); }

 private:
  static constexpr Extents scalar{};
  const Extents* extents_;
};

}  // namespace fusegrad::detail
