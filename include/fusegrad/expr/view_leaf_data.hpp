// expr/view_leaf_data.hpp -- the values and extents of a leaf that reads memory owned by the caller: a pointer and
// extents, an Eigen object, map or block, a GradientArray; and the diagnostics of what it cannot view.
#pragma once

#include <concepts>
#include <cstddef>
#include <string>

#include <Eigen/Core>

#include <fusegrad/concepts.hpp>
#include <fusegrad/detail/always_false.hpp>
#include <fusegrad/error.hpp>
#include <fusegrad/expr/gradient_array.hpp>
#include <fusegrad/expr/leaf_data.hpp>
#include <fusegrad/expr/storage.hpp>
#include <fusegrad/shape/eigen_extents.hpp>

namespace fusegrad::detail {

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
  /// Views memory an Eigen Map or a block of a named object reads (a Map over a buffer, a row of a row-major matrix,
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
  /// An Eigen expression (`a * 2.0`), wrapper or transpose (`v.array()`, `m.transpose()`) is not viewed: the leaf views
  /// the named object itself, whose layout is the one its rank rule reads.
  template <class Derived>
  explicit leaf_data(const Eigen::DenseBase<Derived>&) {
    static_assert(sizeof(Derived) == 0,
                  "fusegrad: a view leaf views a named Eigen object (a Matrix, an Array, a Map or a Ref), not an "
                  "expression, wrapper or transpose (a * 2.0, v.array(), m.transpose()): view the named object itself, "
                  "or evaluate the expression into one that outlives the leaf, or make an owning leaf (a copy)");
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

}  // namespace fusegrad::detail
