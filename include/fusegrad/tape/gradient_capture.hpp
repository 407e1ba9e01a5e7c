// tape/gradient_capture.hpp -- where a functional backward (fg::grad) collects the gradients it was asked for.
#pragma once

#include <algorithm>
#include <span>
#include <unordered_map>
#include <utility>

#include <Eigen/Core>

#include <fusegrad/detail/buffer.hpp>
#include <fusegrad/tape/tensor_impl.hpp>

namespace fusegrad::detail {

// The scalar type that a tensor of type T casts to and from (BasicTensor::to): float and double
// each other's; other types have no casts, and name themselves.
template <class T>
struct cast_partner {
  using type = T;
};
template <>
struct cast_partner<float> {
  using type = double;
};
template <>
struct cast_partner<double> {
  using type = float;
};

// A functional backward (fg::grad) passes `capture`: the tensors whose gradients it wants.
// Gradients then go to capture->grads, one per wanted tensor reached, and no tensor's
// grad() changes.
template <class T>
struct gradient_capture {
  std::span<tensor_impl<T>* const> wanted;
  std::unordered_map<tensor_impl<T>*, small_buffer<T>>
      grads;  // filled by the backward passes (tape/typed_backward_pass.hpp)
  // The capture of the other scalar type, across a cast (tape/cast.hpp): it wants none of
  // that type's tensors, and leads back here from casts into this type.
  gradient_capture<typename cast_partner<T>::type>* other_type = nullptr;
  [[nodiscard]] bool wants(const tensor_impl<T>* t) const {
    return std::find(wanted.begin(), wanted.end(), t) != wanted.end();
  }
  // Adds g to what was captured for t (a graph reached twice across casts sends it twice).
  void add(tensor_impl<T>* t, small_buffer<T>&& g) {
    const auto [at, added] = grads.try_emplace(t, std::move(g));
    if (added) return;
    const auto n = static_cast<Eigen::Index>(t->extents.size());
    Eigen::Map<array_t<T>>(at->second.data(), n) += Eigen::Map<const array_t<T>>(g.data(), n);
  }
};

}  // namespace fusegrad::detail
