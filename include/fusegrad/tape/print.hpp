// tape/print.hpp -- operator<< for tensors, laid out as PyTorch prints them.
#pragma once

#include <ostream>
#include <sstream>
#include <type_traits>

#include <fusegrad/concepts.hpp>
#include <fusegrad/detail/tensor_layout.hpp>
#include <fusegrad/shape/extents.hpp>
#include <fusegrad/tape/tensor.hpp>

namespace fusegrad {

/// Prints a tensor as PyTorch does: `tensor([[1, 2],\n        [3, 4]], grad_fn=MulBackward)`.
/// Values use the stream's precision and flags (std::setprecision, std::fixed ...), aligned in
/// columns; tensors of more than 1000 values show the first and last 3 entries of each long
/// axis around "...". A leaf that requires grad says so; a float tensor names its type.
template <Scalar T>
std::ostream& operator<<(std::ostream& os, const BasicTensor<T>& t) {
  if (!t.defined()) return os << "tensor(undefined)";
  std::ostringstream out;  // built aside, so the caller's width applies to the whole text
  out << "tensor(";
  detail::tensor_layout<T>(t.data(), t.shape(), os).write(out, 7);
  if (!t.is_leaf())
    out << ", grad_fn=" << t.grad_fn_name();
  else if (t.requires_grad())
    out << ", requires_grad=true";
  if constexpr (std::is_same_v<T, float>)
    out << ", dtype=float";
  else if constexpr (!std::is_same_v<T, double>)
    out << ", dtype=complex";
  out << ')';
  return os << out.str();
}

}  // namespace fusegrad
