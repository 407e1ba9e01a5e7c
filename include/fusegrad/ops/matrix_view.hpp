// ops/matrix_view.hpp -- flat row-major memory seen as an Eigen matrix (for matmul and transpose).
#pragma once

#include <cstddef>

#include <Eigen/Core>

namespace fusegrad::detail {

template <class T>
using row_major_matrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// matrix_view(p, rows, cols): the rows x cols row-major matrix stored at p.
template <class T>
auto matrix_view(T* p, std::size_t rows, std::size_t cols) {
  using M = std::conditional_t<std::is_const_v<T>, const row_major_matrix<std::remove_const_t<T>>, row_major_matrix<T>>;
  return Eigen::Map<M>(p, static_cast<Eigen::Index>(rows), static_cast<Eigen::Index>(cols));
}

}  // namespace fusegrad::detail
