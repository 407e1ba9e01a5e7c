// tape/const_tensor.hpp -- BasicConstTensor (ConstTensor): a tensor that never requires grad, known at compile time.
#pragma once

#include <type_traits>

#include <fusegrad/concepts.hpp>
#include <fusegrad/error.hpp>
#include <fusegrad/tape/tensor.hpp>

namespace fusegrad {

/// A tensor whose type says it never takes gradients: data, targets, masks. It is what
/// Const is to Var in the static layer. A plain Tensor that does not require grad gets no
/// gradient either, but a fused node learns that only at run time, when its loop is
/// already compiled to compute the VJP of every tensor leaf; a ConstTensor's VJPs are not
/// compiled at all, so a fused node over data costs what the static gradient costs.
/// Example: benchmarks/b2_linear_regression.cpp.
template <Scalar T>
class BasicConstTensor : public BasicTensor<T> {
 public:
  static constexpr bool takes_grad = false;

  /// An undefined tensor.
  BasicConstTensor() = default;
  /// The values of `t` (shared, not copied), detached from its graph, as detach() does.
  explicit BasicConstTensor(const BasicTensor<T>& t) : BasicTensor<T>(t.defined() ? t.detach() : BasicTensor<T>()) {}

  /// A ConstTensor never requires grad: `requires_grad_(true)` throws.
  BasicConstTensor& requires_grad_(bool on = true) {
    if (on)
      throw graph_error(
          "fusegrad::ConstTensor::requires_grad_(): a ConstTensor never takes gradients; to differentiate with "
          "respect to its values, make a Tensor leaf of them: fusegrad::Tensor t = c.detach(); t.requires_grad_();");
    return *this;
  }
  [[nodiscard]] BasicConstTensor detach() const { return BasicConstTensor(BasicTensor<T>::detach()); }
};

/// A constant tensor of doubles.
using ConstTensor = BasicConstTensor<double>;
/// A constant tensor of floats.
using FloatConstTensor = BasicConstTensor<float>;

}  // namespace fusegrad
