// tape/tensor_factories.hpp -- how tensors are made: filled (zeros, full, arange, linspace), copied or borrowed from
// the caller's values (from, from_blob), drawn from a seed (rand, randn). BasicTensor declares them with their
// contracts; this header defines them.
#pragma once

#include <algorithm>
#include <cmath>
#include <concepts>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include <Eigen/Core>

#include <fusegrad/detail/number_text.hpp>
#include <fusegrad/detail/random_numbers.hpp>
#include <fusegrad/error.hpp>
#include <fusegrad/shape/eigen_extents.hpp>
#include <fusegrad/shape/extents.hpp>
#include <fusegrad/tape/basic_tensor.hpp>

namespace fusegrad {

template <Scalar T>
BasicTensor<T> BasicTensor<T>::zeros(const Extents& e) {
  return full(e, T(0));
}

template <Scalar T>
BasicTensor<T> BasicTensor<T>::ones(const Extents& e) {
  return full(e, T(1));
}

template <Scalar T>
BasicTensor<T> BasicTensor<T>::full(const Extents& e, T value) {
  BasicTensor t = empty(e);
  t.impl_->values().setConstant(value);
  return t;
}

template <Scalar T>
BasicTensor<T> BasicTensor<T>::arange(double start, double stop, double step) {
  using detail::number_text;
  const std::string given =
      "start " + number_text(start) + ", stop " + number_text(stop) + ", step " + number_text(step);
  if (!std::isfinite(start) || !std::isfinite(stop) || !std::isfinite(step))
    throw value_error("fusegrad::Tensor::arange: start, stop and step must be finite, not " + given);
  if (step == 0.0 || (stop - start) / step < 0)
    throw value_error("fusegrad::Tensor::arange: the step must move from start towards stop (" + given +
                      "); give a step of the sign of stop - start");
  const double count = std::ceil((stop - start) / step);
  if (!(count <= double(Extents::max_size)))
    throw value_error("fusegrad::Tensor::arange: " + number_text(count) + " values (" + given +
                      ") are more than a tensor holds (" + Extents::max_size_text() +
                      "); take a larger step or a shorter range");
  const auto n = static_cast<std::size_t>(count);
  BasicTensor t = empty({n});
  for (std::size_t i = 0; i < n; ++i) t.impl_->storage->data[i] = T(start + double(i) * step);
  return t;
}

template <Scalar T>
BasicTensor<T> BasicTensor<T>::arange(double stop) {
  return arange(0.0, stop);
}

template <Scalar T>
BasicTensor<T> BasicTensor<T>::linspace(double start, double end, std::size_t steps) {
  if (const auto as_signed = static_cast<std::ptrdiff_t>(steps); as_signed < 0)  // a negative count made unsigned
    throw value_error("fusegrad::Tensor::linspace: steps is " + std::to_string(steps) + ", " +
                      std::to_string(as_signed) + " as a signed number; the number of steps must be 0 or more");
  // An endpoint past float's range is refused for a tensor of float, as in PyTorch, not turned into an infinity
  // (the values between two endpoints it holds are held too); every finite double is a double tensor's.
  using real = typename Eigen::NumTraits<T>::Real;
  for (const double endpoint : {start, end})
    if (std::isfinite(endpoint) && std::abs(endpoint) > double(std::numeric_limits<real>::max()))
      throw value_error("fusegrad::Tensor::linspace: " + detail::number_text(endpoint) +
                        " cannot be converted to float without overflow (the largest float is " +
                        detail::number_text(std::numeric_limits<real>::max()) +
                        "); give endpoints within its range, or make a tensor of double");
  if (steps > Extents::max_size)
    throw value_error("fusegrad::Tensor::linspace: " + std::to_string(steps) + " steps are more than a tensor holds (" +
                      Extents::max_size_text() + "); ask for fewer");
  BasicTensor t = empty({steps});
  if (steps == 1) return full({1}, T(start));
  const double step = (end - start) / double(steps - 1);
  // The second half counts back from `end`, so that the last value is `end` exactly, as in PyTorch.
  for (std::size_t i = 0; i < steps; ++i)
    t.impl_->storage->data[i] = T(i < steps / 2 ? start + double(i) * step : end - double(steps - 1 - i) * step);
  return t;
}

template <Scalar T>
BasicTensor<T> BasicTensor<T>::zeros_like(const BasicTensor& other) {
  return zeros(other.shape());
}

template <Scalar T>
BasicTensor<T> BasicTensor<T>::ones_like(const BasicTensor& other) {
  return ones(other.shape());
}

template <Scalar T>
BasicTensor<T> BasicTensor<T>::full_like(const BasicTensor& other, T value) {
  return full(other.shape(), value);
}

template <Scalar T>
template <class Derived>
BasicTensor<T> BasicTensor<T>::from(const Eigen::DenseBase<Derived>& eigen) {
  BasicTensor t = empty(eigen_extents(eigen));
  detail::copy_row_major(t.impl_->storage->data, eigen);
  return t;
}

template <Scalar T>
template <class Derived>
BasicTensor<T> BasicTensor<T>::from(const Eigen::DenseBase<Derived>& eigen, const Extents& e) {
  check_count(static_cast<std::size_t>(eigen.size()), e, "fusegrad::Tensor::from");
  BasicTensor t = empty(e);
  t.impl_->values() = eigen.derived().template cast<T>().template reshaped<Eigen::AutoOrder>().array();
  return t;
}

template <Scalar T>
BasicTensor<T> BasicTensor<T>::from(std::span<const T> values, const Extents& e) {
  check_count(values.size(), e, "fusegrad::Tensor::from");
  BasicTensor t = empty(e);
  std::copy(values.begin(), values.end(), t.impl_->storage->data);
  return t;
}

template <Scalar T>
BasicTensor<T> BasicTensor<T>::from(const std::vector<T>& values, const Extents& e) {
  return from(std::span<const T>(values), e);
}

template <Scalar T>
BasicTensor<T> BasicTensor<T>::from(std::initializer_list<T> values, const Extents& e) {
  return from(std::span<const T>(values.begin(), values.size()), e);
}

template <Scalar T>
template <std::size_t N>
BasicTensor<T> BasicTensor<T>::from(const T (&values)[N]) requires std::floating_point<T> {
  return from(std::span<const T>(values, N), Extents{N});
}

template <Scalar T>
BasicTensor<T> BasicTensor<T>::from(
    std::initializer_list<std::initializer_list<T>> rows) requires std::floating_point<T> {
  const std::size_t cols = rows.size() == 0 ? 0 : rows.begin()->size();
  for (const auto& row : rows)
    if (row.size() != cols)
      throw shape_error("fusegrad::Tensor::from: rows of " + std::to_string(cols) + " and " +
                        std::to_string(row.size()) + " values; every row of a matrix has the same length");
  BasicTensor t = empty({rows.size(), cols});
  T* out = t.impl_->storage->data;
  for (const auto& row : rows) out = std::copy(row.begin(), row.end(), out);
  return t;
}

template <Scalar T>
BasicTensor<T> BasicTensor<T>::scalar(T value) {
  return full(Extents{}, value);
}

template <Scalar T>
BasicTensor<T> BasicTensor<T>::from_blob(T* data, const Extents& e) {
  if (data == nullptr && e.size() != 0)
    throw value_error("fusegrad::Tensor::from_blob: a null pointer for shape " + e.to_string() + " of " +
                      std::to_string(e.size()) + " values; pass the address of the values, or make the tensor with " +
                      "Tensor::zeros(e)");
  return BasicTensor(detail::ref<impl_type>::make(e, storage_type::borrowing(data)));
}

template <Scalar T>
BasicTensor<T> BasicTensor<T>::rand(const Extents& e, std::uint64_t seed) {
  detail::random_numbers numbers(seed);
  constexpr int precision = std::min(std::numeric_limits<typename Eigen::NumTraits<T>::Real>::digits, 53);
  return generate(e, [&] { return T(numbers.uniform(precision)); });
}

template <Scalar T>
BasicTensor<T> BasicTensor<T>::randn(const Extents& e, std::uint64_t seed) {
  detail::random_numbers numbers(seed);
  return generate(e, [&] { return T(numbers.normal()); });
}

}  // namespace fusegrad
