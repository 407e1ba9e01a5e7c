// tape/tensor_in_place.hpp -- the Tensor members that write its values in place (mutable_eigen(), sub_, add_, mul_,
// fill_), and the rules they keep: the tape records no in-place write, so none may reach a value backward would read.
#pragma once

#include <string>

#include <Eigen/Core>

#include <fusegrad/error.hpp>
#include <fusegrad/shape/broadcast.hpp>
#include <fusegrad/shape/extents.hpp>
#include <fusegrad/shape/reduce_broadcast.hpp>
#include <fusegrad/tape/basic_tensor.hpp>
#include <fusegrad/tape/grad_mode.hpp>

namespace fusegrad {

template <Scalar T>
Eigen::Map<detail::array_t<T>> BasicTensor<T>::mutable_eigen() {
  return written_in_place("mutable_eigen()");
}

template <Scalar T>
BasicTensor<T>& BasicTensor<T>::sub_(const BasicTensor& other, T alpha) {
  update_with(other, "sub_()", [alpha](auto&& values, const auto& x) { values -= alpha * x; });
  return *this;
}

template <Scalar T>
BasicTensor<T>& BasicTensor<T>::add_(const BasicTensor& other, T alpha) {
  update_with(other, "add_()", [alpha](auto&& values, const auto& x) { values += alpha * x; });
  return *this;
}

template <Scalar T>
BasicTensor<T>& BasicTensor<T>::mul_(T factor) {
  written_in_place("mul_()") *= factor;
  return *this;
}

template <Scalar T>
BasicTensor<T>& BasicTensor<T>::fill_(T value) {
  written_in_place("fill_()").setConstant(value);
  return *this;
}

// The values, about to be written in place by `what`: checked, and each node that saved them told (its version
// check then refuses to run backward on the changed values).
template <Scalar T>
Eigen::Map<detail::array_t<T>> BasicTensor<T>::written_in_place(const char* what) {
  check_in_place(what);
  checked().data();
  try {
    impl_->storage->prepare_write_in_place();
  } catch (const value_error& e) {  // DetectAnomalyGuard found a deferred value that reads these values not finite
    throw value_error(std::string("fusegrad::Tensor::") + what + ": not written, the tensor is unchanged. " + e.what() +
                      ". That value reads this tensor and was computed before the write; write outside the guard, "
                      "or drop the tensor holding that value first");
  }
  return impl_->values();
}

template <Scalar T>
void BasicTensor<T>::check_in_place(const char* what) const {
  if (!is_grad_enabled()) return;
  if (checked().requires_grad && is_leaf())
    throw graph_error(std::string("fusegrad::Tensor::") + what +
                      ": a leaf that requires grad is being written in place while grad mode is on; "
                      "update parameters inside a fusegrad::NoGradGuard");
  if (impl_->is_view && impl_->storage->has_grad_leaves())
    throw graph_error(std::string("fusegrad::Tensor::") + what +
                      ": this tensor is a reshape of a leaf that requires grad and shares its values; writing it "
                      "in place while grad mode is on would change the leaf. Write inside a fusegrad::NoGradGuard, "
                      "or write a clone()");
  if (impl_->views_grad_result)
    throw graph_error(std::string("fusegrad::Tensor::") + what +
                      ": this tensor is a reshape, made while grad mode was off, of a tensor computed from tensors "
                      "that require grad, and shares its values; writing it in place while grad mode is on would "
                      "change values backward reads. Write inside a fusegrad::NoGradGuard, or write a clone()");
  // The tape records no in-place operation: backward would differentiate the values as they were.
  if (impl_->requires_grad)
    throw graph_error(std::string("fusegrad::Tensor::") + what +
                      ": this tensor is computed from tensors that require grad and is being written in place "
                      "while grad mode is on; the tape does not record in-place writes, so backward would "
                      "differentiate its old values. Compute a new tensor instead (h = h * 2.0, not h.mul_(2.0))");
}

// `other` is added into this tensor in place (add_, sub_): its gradient could not flow back.
template <Scalar T>
void BasicTensor<T>::check_operand_in_place(const BasicTensor& other, const char* what) const {
  if (is_grad_enabled() && other.requires_grad())
    throw graph_error(std::string("fusegrad::Tensor::") + what +
                      ": the tensor added in place requires grad, and the tape does not record in-place writes, so "
                      "its gradient would be lost. Write c = c + w instead of c.add_(w), or update inside a "
                      "fusegrad::NoGradGuard");
}

// update(values, x) with this tensor's values written in place and x `other`'s values broadcast to its shape (a copy
// made before anything is written, where the shapes differ).
template <Scalar T>
template <class Update>
void BasicTensor<T>::update_with(const BasicTensor& other, const char* what, Update update) {
  check_in_place(what);  // first, as PyTorch's: a leaf that requires grad is refused whatever the operand
  if (other.shape() == shape()) {
    check_operand_in_place(other, what);
    update(written_in_place(what), other.eigen());
    return;
  }
  if (!broadcasts_to(other.shape(), shape()))
    throw detail::not_broadcast_to_error(
        std::string("fusegrad::Tensor::") + what + " (an in-place update keeps the tensor's shape)", other.shape(),
        shape());
  check_operand_in_place(other, what);
  detail::array_t<T> repeated(static_cast<Eigen::Index>(numel()));
  broadcast_into(repeated.data(), other.data(), other.shape(), shape());
  update(written_in_place(what), repeated);
}

}  // namespace fusegrad
