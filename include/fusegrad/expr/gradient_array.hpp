// expr/gradient_array.hpp -- GradientArray: the gradient value_and_grad returns for a var whose values live on the
// heap, an Eigen array over a block that the thread recycles.
#pragma once

#include <algorithm>
#include <cstddef>
#include <new>
#include <string>
#include <type_traits>
#include <utility>

#include <Eigen/Core>

#include <fusegrad/detail/buffer.hpp>
#include <fusegrad/error.hpp>

namespace fusegrad {

/// A flat gradient (its var's values in row-major order, one column) in memory recycled per thread, as a tensor's.
/// It is an Eigen array in every use that reads or writes its values: `x.value() -= lr * dx`,
/// `dx.sum()`, `Eigen::ArrayXd kept = dx`. A loop that takes gradients at large sizes and drops
/// them gets the same blocks back on the next call, instead of memory fresh from the system, whose
/// pages fault on first touch, once per 4 KiB, on every call.
///
/// Assigning an expression of another size resizes it, as assigning to an Eigen::Array does. Hold it by value or
/// as a GradientArray reference (`auto`, `auto&&`): a plain Eigen::Map bound to a temporary one outlives its block,
/// as a Map over any temporary array would.
template <class T>
class GradientArray : public Eigen::Map<Eigen::Array<T, Eigen::Dynamic, 1>> {
  using map = Eigen::Map<Eigen::Array<T, Eigen::Dynamic, 1>>;

 public:
  GradientArray() : map(nullptr, 0) { point_at_values(); }
  /// n values, uninitialised.
  explicit GradientArray(std::size_t n) : map(nullptr, 0), values_(n) { point_at_values(); }
  template <class Other>
  GradientArray(const Eigen::DenseBase<Other>& other)  // NOLINT(google-explicit-constructor): as Eigen::Array
      requires std::is_convertible_v<typename Other::Scalar, T>
      : GradientArray(static_cast<std::size_t>(other.size())) {
    map::operator=(other);
  }
  GradientArray(const GradientArray& other) : GradientArray(static_cast<std::size_t>(other.size())) {
    std::copy_n(other.data(), other.size(), this->data());
  }
  GradientArray(GradientArray&& other) noexcept : map(nullptr, 0), values_(std::move(other.values_)) {
    point_at_values();
    other.point_at_values();
  }
  ~GradientArray() = default;

  GradientArray& operator=(const GradientArray& other) {
    if (this != &other) assign(other);
    return *this;
  }
  GradientArray& operator=(GradientArray&& other) noexcept {
    if (this != &other) {
      values_ = std::move(other.values_);
      point_at_values();
      other.point_at_values();
    }
    return *this;
  }
  template <class Other>
  GradientArray& operator=(const Eigen::DenseBase<Other>& other) {
    assign(other);
    return *this;
  }
  /// Every value set to `value` (`dx = 0.0`), as for an Eigen::Array.
  GradientArray& operator=(const T& value) {
    map::setConstant(value);
    return *this;
  }

  /// n values, uninitialised unless n is the size it has (Eigen::Array::resize's contract). Should it throw (a
  /// negative n, memory that ran out), the array keeps its values.
  void resize(Eigen::Index n) {
    if (n < 0)
      throw value_error("fusegrad::GradientArray::resize(" + std::to_string(n) +
                        "): a size is a count of values, 0 or more");
    values_.resize(static_cast<std::size_t>(n));
    point_at_values();
  }

 private:
  // An expression of this array's size is written in place (element-wise aliasing, as in dx = 2 * dx, is safe); one
  // of another size is evaluated into a new block first, since it may read this one.
  template <class Other>
  void assign(const Eigen::DenseBase<Other>& other) {
    const auto n = static_cast<std::size_t>(other.size());
    if (n == values_.size()) {
      map::operator=(other);
      return;
    }
    detail::small_buffer<T> fresh(n);
    map(fresh.data(), other.size()) = other;
    values_ = std::move(fresh);
    point_at_values();
  }
  // The Map base is rebuilt in place whenever the values move: Eigen's way of re-pointing a Map, which its own
  // Eigen::Ref does to its Map base as well.
  void point_at_values() {
    new (static_cast<map*>(this)) map(values_.data(), static_cast<Eigen::Index>(values_.size()));
  }

  detail::small_buffer<T> values_;
};

}  // namespace fusegrad
