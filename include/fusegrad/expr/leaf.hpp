// expr/leaf.hpp -- Var and Const: the leaves of static expressions, owning or viewing their data.
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
#include <fusegrad/expr/gradient_array.hpp>
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
  /// only at run time, and rows in braces. (Integers in braces are extents, as Extents reads them.)
  template <std::floating_point U>
  leaf_data(std::initializer_list<U>) requires(!is_static_v<S>) {
    static_assert(always_false<U>,
                  "fusegrad::Var/Const: a shape known at run time takes its extents, then the values: "
                  "Var<double, Shape<dyn>> x({3}, {1.0, 2.0, 3.0}); a static shape takes the values alone");
  }
  template <std::floating_point U>
  leaf_data(std::initializer_list<std::initializer_list<U>>) requires(!std::is_constructible_v<T, U, U>) {
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

template <Scalar T, ShapeType S>
class leaf_data<T, S, view> {
 public:
  using value_type = T;
  using static_shape = S;
  static constexpr node_kind kind = node_kind::leaf;

  /// Views `extents.size()` values at `data`, row-major; the caller keeps them alive.
  leaf_data(const T* data, const Extents& extents) : data_(data), extents_(extents) {
    require_fits<S>(extents, "fusegrad leaf view");
  }
  /// Views `data`, whose extents are those of S (all static).
  explicit leaf_data(const T* data) requires is_static_v<S> : data_(data) {}
  /// Views a contiguous Eigen vector for a rank-1 shape, or a row-major matrix for a rank-2
  /// shape (eigen_extents); the caller keeps it alive.
  template <class Derived>
  explicit leaf_data(const Eigen::PlainObjectBase<Derived>& eigen)
      : leaf_data(viewed_values(eigen), eigen_extents(eigen)) {}
  /// Views memory an Eigen Map or a block of a named object reads (a Map over a buffer, `m.row(0)`,
  /// `v.head(3)`), by the same rule; its values must lie one after another (checked at run time, where
  /// the strides are). A temporary Map or block is fine: it does not own what it views. (A block of a
  /// temporary object dangles, as every Eigen block of one does: its type does not tell.)
  template <class Derived, int Level>
  explicit leaf_data(const Eigen::MapBase<Derived, Level>& eigen)
      : leaf_data(viewed_values(eigen), eigen_extents(eigen)) {
    const bool contiguous =
        eigen.size() <= 1 || (eigen.innerStride() == 1 && (is_eigen_vector_v<Derived> || eigen.outerSize() <= 1 ||
                                                           eigen.outerStride() == eigen.innerSize()));
    if (!contiguous)
      throw value_error("fusegrad leaf view of an Eigen map or block: its values are not contiguous (inner stride " +
                        std::to_string(eigen.innerStride()) + ", outer stride " + std::to_string(eigen.outerStride()) +
                        "); a view reads them one after another: copy them into an owning leaf");
  }
  /// A temporary Eigen::Ref may hold a copy of what it was made from, which dies with it.
  template <class Plain, int Options, class Stride>
  explicit leaf_data(Eigen::Ref<Plain, Options, Stride>&&) {
    static_assert(sizeof(Plain) == 0,
                  "fusegrad: a view leaf of a temporary Eigen::Ref may point at a copy the Ref owns, freed after this "
                  "statement; view a named Ref, or the object it refers to, or make an owning leaf (a copy)");
  }
  /// Views a gradient that value_and_grad returned (rank 1); the caller keeps it alive.
  template <class Gradient>
    requires std::same_as<Gradient, GradientArray<T>>
  explicit leaf_data(const Gradient& gradient)
      : leaf_data(gradient.data(), Extents{static_cast<std::size_t>(gradient.size())}) {
    static_assert(S::rank == 1, "fusegrad: a view of a GradientArray is a leaf of rank 1, as of an Eigen vector");
  }
  template <class Gradient>
    requires std::same_as<Gradient, GradientArray<T>>
  explicit leaf_data(const Gradient&&) {
    static_assert(always_false<T>,
                  "fusegrad: a view leaf of a temporary GradientArray would point at freed memory after this "
                  "statement; view a named one that outlives the leaf, or make an owning leaf (a copy)");
  }
  /// An Eigen expression (`a * 2.0`, `m.transpose()`) has no memory to view.
  template <class Derived>
  explicit leaf_data(const Eigen::DenseBase<Derived>&) {
    static_assert(sizeof(Derived) == 0,
                  "fusegrad: a view leaf reads memory, and this Eigen expression has none; evaluate it into a named "
                  "Eigen object that outlives the leaf and view that, or make an owning leaf (a copy)");
  }
  /// A std::vector (or another range) is viewed through its pointer and extents.
  template <class R>
    requires data_range<R, T>
  explicit leaf_data(R&&) {
    static_assert(always_false<R>,
                  "fusegrad::Var/Const: a view leaf takes a pointer and extents, not a std::vector or another range: "
                  "Var<double, Shape<dyn>, view> x(v.data(), {v.size()}) (v must outlive x)");
  }
  /// A view of a temporary Eigen object would dangle once the statement ends.
  template <class Derived>
  explicit leaf_data(const Eigen::PlainObjectBase<Derived>&&) {
    static_assert(sizeof(Derived) == 0,
                  "fusegrad: a view leaf of a temporary Eigen object would point at freed memory after this "
                  "statement; view a named Eigen object that outlives the leaf, or make an owning leaf (a copy)");
  }

  /// The leaf's extents (a reference to them where S leaves some to run time: a sweep asks often).
  [[nodiscard]] decltype(auto) extents() const noexcept { return extents_.get(); }
  [[nodiscard]] const T* data() const noexcept { return data_; }
  [[nodiscard]] auto value() const noexcept {
    return Eigen::Map<const storage_t<T, S>>(data_, static_cast<Eigen::Index>(extents().size()));
  }

 private:
  // An Eigen object's values, once the rules of a view of it hold: the leaf's scalar type, the rank of its type
  // (eigen_extents), row-major order for rank 2. One diagnostic, for the first rule it breaks.
  template <class Derived>
  static const T* viewed_values(const Eigen::DenseBase<Derived>& eigen) {
    constexpr bool same_scalar = std::same_as<typename Derived::Scalar, T>;
    constexpr bool rank_fits = S::rank == (is_eigen_vector_v<Derived> ? 1 : 2);
    static_assert(std::same_as<typename Derived::Scalar, T>,
                  "fusegrad: a view leaf reads values of its own scalar type, and this Eigen object holds another; "
                  "declare the leaf with the object's scalar type, or copy it into an owning leaf");
    static_assert(!same_scalar || S::rank == (is_eigen_vector_v<Derived> ? 1 : 2),
                  "fusegrad: a view of an Eigen vector type is a leaf of rank 1, of any other Eigen matrix or array "
                  "one of rank 2 (rows, cols); declare the leaf's shape with that rank");
    static_assert(!(same_scalar && rank_fits) || is_eigen_vector_v<Derived> || bool(Derived::IsRowMajor),
                  "fusegrad: a view leaf reads its values row-major, and this Eigen matrix is column-major (Eigen's "
                  "default); view a matrix declared or mapped with Eigen::RowMajor, or copy it into an owning leaf");
    if constexpr (same_scalar)
      return eigen.derived().data();
    else
      return nullptr;
  }

  const T* data_;
  [[no_unique_address]] leaf_extents<S> extents_;
};

// The shape of a Var or Const that names none, Var<double>, or names a type that is not a Shape: its leaf is then a
// Shape<dyn> vector that takes any arguments, so that the static_assert of Var or Const is the one error.
struct shape_not_given {};

template <Scalar T, class Storage>
class leaf_data<T, shape_not_given, Storage> : public leaf_data<T, Shape<dyn>, owning> {
 public:
  template <class... A>
  explicit leaf_data(A&&...) : leaf_data<T, Shape<dyn>, owning>(Extents{0}) {}
  leaf_data(std::initializer_list<T>) : leaf_data() {}
  leaf_data(std::initializer_list<std::initializer_list<T>>) : leaf_data() {}
  leaf_data(const Extents&, std::initializer_list<T>) : leaf_data() {}
};

// The scalar type a leaf stores: T, or double where T is not a Scalar, so that the leaf's own static_assert is the one
// error (a constrained T would add knock-on errors for every use of the leaf). The same for its shape.
template <class T>
using leaf_scalar_t = std::conditional_t<Scalar<T>, T, double>;
template <class S>
using leaf_shape_t = std::conditional_t<ShapeType<S>, S, shape_not_given>;
}  // namespace detail

/// A variable: a leaf that receives gradients. `Var<double, Shape<3>> x{1.0, 2.0, 3.0};`
/// Static shapes up to max_fixed_bytes own fixed-size storage, so no heap is touched.
/// `Var<double, Shape<dyn>, view> x(data, {n});` reads caller memory without copying.
/// Example: examples/static_gradient.cpp.
template <class T, class S = detail::shape_not_given, class Storage = owning>
class Var : public detail::leaf_data<detail::leaf_scalar_t<T>, detail::leaf_shape_t<S>, Storage> {
  static_assert(Scalar<T>,
                "fusegrad::Var<T, S>: T is not a scalar type fusegrad differentiates; use float, double, "
                "std::complex<float> or std::complex<double> (an integer tensor has no gradient)");
  static_assert(!std::is_same_v<detail::leaf_shape_t<S>, detail::shape_not_given>,
                "fusegrad::Var<T, S>: S is the shape, a type: fg::Var<double, fg::Shape<3>>, or "
                "fg::Shape<fg::dyn> for an extent known at run time");

 public:
  using detail::leaf_data<detail::leaf_scalar_t<T>, detail::leaf_shape_t<S>, Storage>::leaf_data;
  static constexpr bool takes_grad = true;
};

/// A constant: a leaf that never receives gradients (data, targets, literals).
template <class T, class S = detail::shape_not_given, class Storage = owning>
class Const : public detail::leaf_data<detail::leaf_scalar_t<T>, detail::leaf_shape_t<S>, Storage> {
  static_assert(Scalar<T>,
                "fusegrad::Const<T, S>: T is not a scalar type fusegrad computes with; use float, double, "
                "std::complex<float> or std::complex<double> (convert integer data to one of them)");
  static_assert(!std::is_same_v<detail::leaf_shape_t<S>, detail::shape_not_given>,
                "fusegrad::Const<T, S>: S is the shape, a type: fg::Const<double, fg::Shape<3>>, or "
                "fg::Shape<fg::dyn> for an extent known at run time");

 public:
  using detail::leaf_data<detail::leaf_scalar_t<T>, detail::leaf_shape_t<S>, Storage>::leaf_data;
  static constexpr bool takes_grad = false;
};

namespace detail {
// A Const that reads the caller's memory (the view storage policy): its values may change, or be freed, after the
// expression is built.
template <class E>
struct is_view_const : std::false_type {};
template <Scalar T, ShapeType S>
struct is_view_const<Const<T, S, view>> : std::true_type {};
}  // namespace detail

}  // namespace fusegrad
