// expr/leaf_data.hpp -- the values and extents of a leaf that owns them; the storage policies owning and view.
#pragma once

#include <algorithm>
#include <array>
#include <concepts>
#include <cstddef>
#include <initializer_list>
#include <span>
#include <string>
#include <type_traits>

#include <Eigen/Core>

#include <fusegrad/concepts.hpp>
#include <fusegrad/detail/always_false.hpp>
#include <fusegrad/error.hpp>
#include <fusegrad/expr/storage.hpp>
#include <fusegrad/shape/eigen_extents.hpp>

namespace fusegrad {

/// Storage policy: the leaf owns its values (fixed-size for small static shapes).
struct owning {};
/// Storage policy: the leaf reads memory owned by the caller (no copy; keep it alive).
struct view {};

namespace detail {

// The extents of a leaf: stored when S leaves some to run time, nothing at all when S fixes
// them (a number in an expression is then its value alone, 8 bytes for a double).
template <ShapeType S>
class leaf_extents {
 public:
  leaf_extents() = default;
  explicit leaf_extents(const Extents& e) : extents_(e) {}
  [[nodiscard]] const Extents& get() const noexcept { return extents_; }

 private:
  Extents extents_;
};
template <ShapeType S>
  requires is_static_v<S>
class leaf_extents<S> {
 public:
  constexpr leaf_extents() = default;
  constexpr explicit leaf_extents(const Extents&) {}  // the constructors check that they fit S
  [[nodiscard]] static constexpr Extents get() { return Extents::of<S>(); }
};

// Values and extents of a leaf. Shared by Var and Const, which differ only in takes_grad.
template <Scalar T, class S, class Storage>
class leaf_data;

// data_range<R, T>: a std::vector, std::array or other range passed where a leaf takes its values, which no constructor
// copies; Extents (a range too) and anything that converts to it, to T or to a pointer to T (a C array) are the
// arguments of other constructors, and Eigen objects have their own.
template <class R, class T>
concept data_range = iterable<R> && !std::is_convertible_v<R, Extents> && !std::is_convertible_v<R, T> &&
                     !std::is_convertible_v<R, const T*> &&  // a C array: a view's pointer
                     !eigen_object<std::remove_cvref_t<R>>;

// A count given the way torch.zeros(3) takes one: numbers alone, to a leaf of rank >= 1.
template <class S, class... N>
concept numbers_for_extents = S::rank != 0 && sizeof...(N) != 0 &&
                              (std::is_arithmetic_v<std::remove_cvref_t<N>> && ...);

// Rows in braces, {{1.0, 2.0}, {3.0, 4.0}}, which a leaf refuses with a diagnostic: of floating-point numbers, and of
// integers for a static shape, where {{1, 2}, {3, 4}} would otherwise read as extents (1, 2) and values 3, 4 and fit
// Shape<1, 2> with the wrong values (a shape known at run time takes its extents so). Complex values' {re, im} pairs
// are values, not rows.
template <class U, class T, class S>
concept rows_in_braces = (std::floating_point<U> || (std::integral<U> && is_static_v<S>)) &&
                         !std::is_constructible_v<T, U, U>;

template <Scalar T, ShapeType S>
class leaf_data<T, S, owning> {
 public:
  using value_type = T;
  using static_shape = S;
  static constexpr node_kind kind = node_kind::leaf;

  leaf_data() requires is_static_v<S> : values_(storage_t<T, S>::Zero(static_cast<Eigen::Index>(size_v<S>))) {}

  /// From values listed in row-major order; a static shape needs exactly size_v<S> of them.
  leaf_data(std::initializer_list<T> values) requires is_static_v<S> : leaf_data() {
    if (values.size() != size_v<S>)
      throw shape_error("fusegrad: " + std::to_string(values.size()) + " values given for shape " + to_string<S>() +
                        ", which holds " + std::to_string(size_v<S>));
    std::copy(values.begin(), values.end(), values_.data());
  }

  /// Two ways to list values that would not compile, each a diagnostic that says how: values alone for a shape known
  /// only at run time, and rows in braces. (Integers in braces are extents, as Extents reads them, but for a static
  /// shape two lists of them are rows.)
  template <std::floating_point U>
  leaf_data(std::initializer_list<U>) requires(!is_static_v<S>) {
    static_assert(always_false<U>,
                  "fusegrad::Var/Const: a shape known at run time takes its extents, then the values: "
                  "Var<double, Shape<dyn>> x({3}, {1.0, 2.0, 3.0}); a static shape takes the values alone");
  }
  template <class U>
  leaf_data(std::initializer_list<std::initializer_list<U>>) requires(rows_in_braces<U, T, S>) {
    static_assert(always_false<U>,
                  "fusegrad::Var/Const: values are listed flat, in row-major order, not as rows in braces: "
                  "Var<double, Shape<2, 3>> x{1.0, 2.0, 3.0, 4.0, 5.0, 6.0}");
  }
  /// Two more: a std::vector (or another range), which no constructor copies, and numbers alone, as torch.zeros(3)
  /// takes a count.
  template <class R>
    requires data_range<R, T>
  explicit leaf_data(R&&) {
    if constexpr (is_static_v<S>)
      static_assert(always_false<R>,
                    "fusegrad::Var/Const: a leaf is not built from a std::vector or another range; copy it into zeros: "
                    "Var<double, Shape<3>> x; std::ranges::copy(v, x.data()); or view it without a copy: "
                    "Var<double, Shape<3>, view> x(v.data(), {v.size()})");
    else
      static_assert(always_false<R>,
                    "fusegrad::Var/Const: a leaf is not built from a std::vector or another range; copy it into zeros: "
                    "Var<double, Shape<dyn>> x({v.size()}); std::ranges::copy(v, x.data()); or view it without a "
                    "copy: Var<double, Shape<dyn>, view> x(v.data(), {v.size()})");
  }
  template <class... N>
    requires numbers_for_extents<S, N...>
  explicit leaf_data(N&&...) {
    static_assert(always_false<N...>,
                  "fusegrad::Var/Const: numbers alone are neither a size nor values; n zeros: "
                  "Var<double, Shape<dyn>> x({n}) (n a std::size_t); n values: x({n}, {1.0, 2.0, ...}); a static shape "
                  "takes its values in braces, Var<double, Shape<3>> x{1.0, 2.0, 3.0}, or none for zeros");
  }

  /// A scalar from its value: `Var<double, Shape<>> x(2.0);`, and what `2.0` becomes in `2.0 * x`.
  explicit leaf_data(T value) requires(S::rank == 0) : values_(storage_t<T, S>::Constant(1, value)) {}

  /// From run-time extents (checked against S) and values in row-major order.
  leaf_data(const Extents& extents, std::initializer_list<T> values) : leaf_data(extents) {
    if (values.size() != extents.size())
      throw shape_error("fusegrad: " + std::to_string(values.size()) + " values given for extents " +
                        extents.to_string() + ", which hold " + std::to_string(extents.size()));
    std::copy(values.begin(), values.end(), values_.data());
  }

  /// Zeros of the given run-time extents (checked against S).
  explicit leaf_data(const Extents& extents) : extents_(extents) {
    require_fits<S>(extents, "fusegrad leaf");
    values_ = storage_t<T, S>::Zero(static_cast<Eigen::Index>(extents.size()));
  }
  /// The same from extents in braces, `x({n})`. Without it, {n} would reach both Extents and, through the copy
  /// constructor, the diagnostic for numbers alone: two user-defined conversions, an ambiguity. To an array of
  /// extents it is a standard conversion, which wins.
  template <std::size_t R>
  explicit leaf_data(const std::size_t (&extents)[R]) requires(S::rank != 0)
      : leaf_data(Extents(std::span<const std::size_t>(extents, R))) {}

  /// From an Eigen object, copied: a vector type for a rank-1 shape, any other matrix or
  /// array for a rank-2 shape (eigen_extents, the rule Tensor::from follows too).
  template <class Derived>
  explicit leaf_data(const Eigen::DenseBase<Derived>& eigen) : extents_(eigen_extents(eigen)) {
    static_assert(S::rank == (is_eigen_vector_v<Derived> ? 1 : 2),
                  "fusegrad: an Eigen vector type gives a leaf of rank 1, any other Eigen matrix or array one of "
                  "rank 2 (rows, cols); declare the leaf's shape with that rank");
    require_fits<S>(eigen_extents(eigen), "fusegrad leaf from an Eigen object");
    values_.resize(static_cast<Eigen::Index>(eigen.size()));
    detail::copy_row_major(values_.data(), eigen);
  }

  leaf_data(const leaf_data&) = default;
  leaf_data& operator=(const leaf_data&) = default;
  // A moved-from leaf stays one whose extents describe its values, so using it cannot read past them: an axis of
  // run-time extent becomes empty, and heap values of a static shape become zeros (fixed storage is copied).
  leaf_data(leaf_data&& other) noexcept(!is_static_v<S> || has_fixed_storage_v<T, S>)
      : values_(std::move(other.values_)), extents_(other.extents_) {
    other.refill_after_move();
  }
  leaf_data& operator=(leaf_data&& other) noexcept(!is_static_v<S> || has_fixed_storage_v<T, S>) {
    if (this != &other) {
      values_ = std::move(other.values_);
      extents_ = other.extents_;
      other.refill_after_move();
    }
    return *this;
  }
  ~leaf_data() = default;

  /// The leaf's extents (a reference to them where S leaves some to run time: a sweep asks often).
  [[nodiscard]] decltype(auto) extents() const noexcept { return extents_.get(); }
  [[nodiscard]] const T* data() const noexcept { return values_.data(); }
  [[nodiscard]] T* data() noexcept { return values_.data(); }
  /// The values, flat and row-major; writable, so an optimiser can update them in place.
  [[nodiscard]] auto value() noexcept { return Eigen::Map<storage_t<T, S>>(values_.data(), values_.size()); }
  [[nodiscard]] auto value() const noexcept {
    return Eigen::Map<const storage_t<T, S>>(values_.data(), values_.size());
  }

 private:
  void refill_after_move() {
    if constexpr (has_fixed_storage_v<T, S>) {
      return;
    } else if constexpr (is_static_v<S>) {
      values_ = storage_t<T, S>::Zero(static_cast<Eigen::Index>(size_v<S>));
    } else {
      std::array<std::size_t, S::rank> emptied = S::extents;
      std::ranges::replace(emptied, dyn, std::size_t{0});
      extents_ = leaf_extents<S>(Extents(std::span<const std::size_t>(emptied)));
      values_.resize(0);  // a move assignment may have swapped the target's old values in
    }
  }

  storage_t<T, S> values_;
  [[no_unique_address]] leaf_extents<S> extents_;
};

}  // namespace detail
}  // namespace fusegrad
