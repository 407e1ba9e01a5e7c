// tape/tensor_methods.hpp -- the Tensor members that record an operation: t[i] and t.clone().
#pragma once

#include <cstdint>

#include <fusegrad/ops/clone.hpp>
#include <fusegrad/ops/slice.hpp>
#include <fusegrad/tape/basic_tensor.hpp>
#include <fusegrad/tape/fused.hpp>

namespace fusegrad {

template <Scalar T>
BasicTensor<T> BasicTensor<T>::operator[](std::int64_t i) const {
  return fused(fusegrad::select(*this, 0, i));
}

template <Scalar T>
BasicTensor<T> BasicTensor<T>::clone() const {
  return fused(fusegrad::clone(*this));
}

}  // namespace fusegrad
