// tape/scalar_tensor.hpp -- BasicScalarTensor (ScalarTensor): a tensor that is one value, known at compile time.
#pragma once

#include <type_traits>
#include <utility>

#include <fusegrad/concepts.hpp>
#include <fusegrad/error.hpp>
#include <fusegrad/shape/shape.hpp>
#include <fusegrad/tape/tensor.hpp>

namespace fusegrad {

/// A rank-0 tensor whose rank is part of its type: a parameter such as a mean, a scale or
/// a bias. It is a Tensor in every respect (a handle, recorded, differentiated, optimised
/// in place), but expressions see its static shape Shape<>, as they see a scalar Var. So a
/// fused node knows at compile time that it is one value over the data: it reads it from
/// a register, and computes what depends only on such values (log(sigma), 1 / sigma) once
/// per backward instead of once per element. With plain Tensors that is known only at run
/// time, too late to shape the loop. Example: benchmarks/b3_normal_logpdf.cpp.
template <Scalar T>
class BasicScalarTensor : public BasicTensor<T> {
 public:
  using static_shape = Shape<>;

  /// An undefined tensor.
  BasicScalarTensor() = default;
  /// A new leaf holding `value`.
  explicit BasicScalarTensor(T value) : BasicTensor<T>(BasicTensor<T>::scalar(value)) {}
  /// The same tensor (shared, not copied) seen as a scalar; it must have rank 0.
  explicit BasicScalarTensor(const BasicTensor<T>& t) : BasicTensor<T>(t) { check_rank(*this); }
  /// Records an expression whose result has rank 0 (see fusegrad::fused).
  template <class E>
    requires(Differentiable<std::remove_cvref_t<E>> && !detail::is_tensor_v<std::remove_cvref_t<E>>)
  BasicScalarTensor(E&& expr) : BasicTensor<T>(recorded_scalar(std::forward<E>(expr))) {  // NOLINT: implicit
    check_rank(*this);
  }

  BasicScalarTensor& requires_grad_(bool on = true) {
    BasicTensor<T>::requires_grad_(on);
    return *this;
  }
  BasicScalarTensor& retain_grad() {
    BasicTensor<T>::retain_grad();
    return *this;
  }
  [[nodiscard]] BasicScalarTensor detach() const { return BasicScalarTensor(BasicTensor<T>::detach()); }

 private:
  // The expression recorded as a Tensor, once its static shape is known to be a scalar's: a shape of another rank is
  // the one error, before recording it could report anything else.
  template <class E>
  static BasicTensor<T> recorded_scalar(E&& expr) {
    using static_shape = typename std::remove_cvref_t<E>::static_shape;
    constexpr bool scalar = std::is_same_v<static_shape, AnyShape> || std::is_same_v<static_shape, Shape<>>;
    static_assert(scalar, "fusegrad::ScalarTensor: the expression's static shape is not Shape<> (rank 0)");
    if constexpr (scalar)
      return BasicTensor<T>(std::forward<E>(expr));
    else
      return BasicTensor<T>();
  }
  static void check_rank(const BasicTensor<T>& t) {
    if (t.defined() && t.dim() != 0)
      throw shape_error("fusegrad::ScalarTensor: the tensor has shape " + t.shape().to_string() +
                        "; a ScalarTensor has rank 0, shape (). Reduce it (fg::sum, fg::mean), or keep it a Tensor");
  }
};

/// A scalar tensor of doubles.
using ScalarTensor = BasicScalarTensor<double>;
/// A scalar tensor of floats.
using FloatScalarTensor = BasicScalarTensor<float>;

}  // namespace fusegrad
