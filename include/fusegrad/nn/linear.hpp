// nn/linear.hpp -- Linear: y = x W^T + b, PyTorch's nn.Linear, recorded as one fused node.
#pragma once

#include <cmath>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <string>

#include <fusegrad/concepts.hpp>
#include <fusegrad/detail/random_numbers.hpp>
#include <fusegrad/error.hpp>
#include <fusegrad/ops/add.hpp>
#include <fusegrad/ops/matmul.hpp>
#include <fusegrad/ops/transpose.hpp>
#include <fusegrad/tape/grad_mode.hpp>
#include <fusegrad/tape/tensor.hpp>  // what a layer returns is recorded (fused.hpp), its parameters updated in place

namespace fusegrad::nn {

/// A fully connected layer: for x of shape (*, in) -- one sample (in), a batch (N, in), or batches of them
/// (B, N, in) -- x W^T + b of shape (*, out), as PyTorch's, recorded as one fused node. W (out, in) and b (out) are
/// parameters, drawn as PyTorch draws them, uniformly from (-1/sqrt(in), 1/sqrt(in)), here from `seed` (fusegrad's
/// generator: the same values on every platform; not PyTorch's values). The bias draws from a stream of its own, seeded
/// with mix64(~seed), apart from the weights' streams of seeds 0, 1, 2 ... (mix64 maps 0 to 0, so mix64(seed) would be
/// seed 0's weight stream.)
///   fg::nn::Linear layer(4, 3, /*seed*/ 1);  fg::Tensor y = layer(x);
template <std::floating_point T>
struct BasicLinear {
  BasicTensor<T> weight, bias;  // bias undefined when made without one

 private:
  // The range of the initial values, 1/sqrt(in) (none with no inputs).
  static T bound(std::size_t in_features) { return in_features == 0 ? T(0) : T(1) / std::sqrt(T(in_features)); }

 public:
  BasicLinear(std::size_t in_features, std::size_t out_features, std::uint64_t seed, bool with_bias = true) {
    const NoGradGuard unrecorded;
    weight =
        BasicTensor<T>((BasicTensor<T>::rand({out_features, in_features}, seed) * T(2) - T(1)) * bound(in_features));
    weight.requires_grad_();
    if (with_bias) {
      // No input features: a bias of zeros, as PyTorch's (its bound is 0 then).
      bias = in_features == 0
                 ? BasicTensor<T>::zeros({out_features})
                 : BasicTensor<T>((BasicTensor<T>::rand({out_features}, fusegrad::detail::mix64(~seed)) * T(2) - T(1)) *
                                  bound(in_features));
      bias.requires_grad_();
    }
  }

  [[nodiscard]] BasicTensor<T> operator()(const BasicTensor<T>& x) const {
    const std::size_t in = weight.shape()[1];
    if (x.dim() == 0 || x.shape()[x.dim() - 1] != in)
      throw shape_error("fusegrad::nn::Linear: the input holds rows of " + std::to_string(in) + " features, shape (" +
                        std::to_string(in) + "), (N, " + std::to_string(in) + ") or (..., " + std::to_string(in) +
                        "); it has shape " + x.shape().to_string());
    if (bias.defined()) return matmul(x, transpose(weight)) + bias;
    return matmul(x, transpose(weight));
  }

  /// The parameters by name, for fg::nn::parameters.
  template <class F>
  void visit_members(F&& f) const {
    f("weight", weight);
    if (bias.defined()) f("bias", bias);
  }
};

using Linear = BasicLinear<double>;

}  // namespace fusegrad::nn
