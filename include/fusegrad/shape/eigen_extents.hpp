// shape/eigen_extents.hpp -- the one rule for the shape of Eigen input, in both layers.
#pragma once

#include <cstddef>

#include <Eigen/Core>

#include <fusegrad/shape/extents.hpp>

namespace fusegrad {

/// Whether fusegrad reads an Eigen type as rank 1: a type that is one row or one column at
/// compile time (VectorXd, RowVectorXd, ArrayXd, Vector3d, a matrix's .col() or .row()).
template <class Derived>
inline constexpr bool is_eigen_vector_v = bool(Derived::IsVectorAtCompileTime);

/// The extents of an Eigen object as fusegrad input (Var, Const, Tensor::from): a vector type
/// has rank 1, its size; every other matrix or array has rank 2, (rows, cols), even when one
/// of them is 1 at run time, as NumPy and PyTorch keep a 1x3 array two-dimensional. The rank
/// is thus the type's, known at compile time. Values are read row-major (copy_row_major).
template <class Derived>
[[nodiscard]] Extents eigen_extents(const Eigen::DenseBase<Derived>& e) {
  if constexpr (is_eigen_vector_v<Derived>)
    return Extents{static_cast<std::size_t>(e.size())};
  else
    return Extents{static_cast<std::size_t>(e.rows()), static_cast<std::size_t>(e.cols())};
}

namespace detail {
// Copies an Eigen object's values into `out`, converted to T, in the order of its
// eigen_extents: row-major.
template <class T, class Derived>
void copy_row_major(T* out, const Eigen::DenseBase<Derived>& e) {
  if constexpr (is_eigen_vector_v<Derived>)
    Eigen::Map<Eigen::Matrix<T, Eigen::Dynamic, 1>>(out, e.size()) = e.derived().template cast<T>().matrix().reshaped();
  else
    Eigen::Map<Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(out, e.rows(), e.cols()) =
        e.derived().template cast<T>().matrix();
}
}  // namespace detail

}  // namespace fusegrad
