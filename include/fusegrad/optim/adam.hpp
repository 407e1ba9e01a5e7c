// optim/adam.hpp -- Adam and AdamW, as PyTorch's: bias-corrected moment estimates, L2 or decoupled weight decay,
// AMSGrad.
#pragma once

#include <cmath>
#include <concepts>
#include <cstddef>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <Eigen/Core>

#include <fusegrad/concepts.hpp>
#include <fusegrad/detail/number_text.hpp>
#include <fusegrad/detail/vector_math.hpp>
#include <fusegrad/error.hpp>
#include <fusegrad/optim/optimizer.hpp>
#include <fusegrad/tape/basic_tensor.hpp>

namespace fusegrad::optim {

/// Adam's and AdamW's settings, PyTorch's names and defaults: AdamOptions and AdamWOptions differ
/// only in weight_decay's default (0 and 0.01).
template <bool Decoupled>
struct AdamSettings {
  double lr = 1e-3;
  double beta1 = 0.9, beta2 = 0.999;
  double eps = 1e-8;
  double weight_decay = Decoupled ? 0.01 : 0.0;
  bool amsgrad = false;  // divides by the largest second moment so far
  bool maximize = false;
};
using AdamOptions = AdamSettings<false>;
using AdamWOptions = AdamSettings<true>;

/// PyTorch's Adam (Decoupled = false) and AdamW (true), step for step. With g the gradient
/// (negated to maximize), and t the parameter's step count:
///   Adam adds weight_decay * p to g; AdamW first scales p by 1 - lr * weight_decay;
///   m = beta1 m + (1 - beta1) g,  v = beta2 v + (1 - beta2) g g  (v_max = max(v_max, v) with amsgrad);
///   p -= lr / (1 - beta1^t) * m / (sqrt(v) / sqrt(1 - beta2^t) + eps).
/// One pass over each parameter and its state, a SIMD register at a time.
///   fg::optim::Adam opt({w, b}, {.lr = 1e-2});
template <std::floating_point T, bool Decoupled>
class BasicAdamFamily final : public Optimizer<T> {
 public:
  using options_type = AdamSettings<Decoupled>;

  BasicAdamFamily(std::vector<BasicTensor<T>> parameters, const options_type& options = {})
      : Optimizer<T>(std::move(parameters), options.lr, Decoupled ? "AdamW" : "Adam"), options_(options) {
    const std::string who = Decoupled ? "fusegrad::optim::AdamW: " : "fusegrad::optim::Adam: ";
    detail::require(options.beta1 >= 0 && options.beta1 < 1, who + "beta1 must be in [0, 1)");
    detail::require(options.beta2 >= 0 && options.beta2 < 1, who + "beta2 must be in [0, 1)");
    // Finite numbers: an infinite eps would make every update 0, an infinite weight_decay every parameter NaN.
    detail::require(std::isfinite(options.eps) && options.eps >= 0,
                    who + "eps must be a number >= 0, not " + fusegrad::detail::number_text(options.eps));
    detail::require(
        std::isfinite(options.weight_decay) && options.weight_decay >= 0,
        who + "weight_decay must be a number >= 0, not " + fusegrad::detail::number_text(options.weight_decay));
    state_.resize(this->parameters().size());
  }

  /// The settings it runs with.
  [[nodiscard]] const options_type& options() const noexcept { return options_; }
  /// How many steps parameter k has taken.
  [[nodiscard]] long steps(std::size_t k) const {
    if (k >= state_.size())
      throw value_error(std::string(Decoupled ? "fusegrad::optim::AdamW" : "fusegrad::optim::Adam") +
                        "::steps(k): k = " + std::to_string(k) + ", but the optimiser has " +
                        std::to_string(state_.size()) + " parameters; k counts them from 0, in the order given");
    return state_[k].steps;
  }

 private:
  using typename Optimizer<T>::values;
  using typename Optimizer<T>::gradient;
  using array = Eigen::Array<T, Eigen::Dynamic, 1>;

  struct moments {
    long steps = 0;
    array m, v, v_max;  // made, zero, at the first step
  };

  void prepare(std::size_t k, std::size_t n) override {
    moments& s = state_[k];
    if (s.m.size() != 0) return;
    // Made aside, then moved in: memory running out leaves no moment made without the others.
    array m = array::Zero(Eigen::Index(n)), v = array::Zero(Eigen::Index(n));
    array v_max = options_.amsgrad ? array::Zero(Eigen::Index(n)) : array();
    s.m.swap(m);
    s.v.swap(v);
    s.v_max.swap(v_max);
  }

  void update(std::size_t k, values p, gradient g) override {
    moments& s = state_[k];
    ++s.steps;
    const double lr = this->lr();
    // 1 - beta is computed in double, then rounded, as PyTorch does (in float, 1 - 0.999f is 0.0009999871).
    const T beta1 = T(options_.beta1), beta2 = T(options_.beta2), eps = T(options_.eps), rest1 = T(1 - options_.beta1),
            rest2 = T(1 - options_.beta2), sign = options_.maximize ? T(-1) : T(1);
    const T weight_decay = T(options_.weight_decay), shrink = T(1 - lr * options_.weight_decay);
    const T step_size = T(lr / (1 - std::pow(options_.beta1, double(s.steps))));
    const T correction2_sqrt = T(std::sqrt(1 - std::pow(options_.beta2, double(s.steps))));
    // One pass over the values, a register at a time (for_each_register): an Eigen statement per array would stream
    // one or two of the four arrays from memory at a time, which serves them more slowly (benchmarks/results/optim.md).
    const auto update_at = [&]<class Packet>(std::type_identity<Packet>, Eigen::Index i) {
      using namespace Eigen::internal;
      const auto load = [i](const T* from) { return ploadu<Packet>(from + i); };
      const auto store = [i](T* to, const Packet& value) { pstoreu(to + i, value); };
      const auto constant = [](T value) { return pset1<Packet>(value); };
      Packet x = load(p.data());
      if constexpr (Decoupled) x = pmul(x, constant(shrink));
      Packet d = pmul(constant(sign), load(g.data()));  // the gradient the moments follow
      if (!Decoupled && options_.weight_decay != 0)     // as given: 1e-50 is 0 as a float, and still applies
        d = padd(d, pmul(constant(weight_decay), x));
      const Packet m = padd(pmul(constant(beta1), load(s.m.data())), pmul(constant(rest1), d));
      const Packet v = padd(pmul(constant(beta2), load(s.v.data())), pmul(pmul(constant(rest2), d), d));
      store(s.m.data(), m);
      store(s.v.data(), v);
      Packet second = v;  // the second moment the step divides by
      if (options_.amsgrad) {
        second = pmax(load(s.v_max.data()), v);
        store(s.v_max.data(), second);
      }
      const Packet root = math::sqrt_of(second);
      store(p.data(),
            psub(x, pdiv(pmul(constant(step_size), m), padd(pdiv(root, constant(correction2_sqrt)), constant(eps)))));
    };
    detail::for_each_register<T>(p.size(), update_at);
  }

  options_type options_;
  std::vector<moments> state_;
};

template <std::floating_point T>
using BasicAdam = BasicAdamFamily<T, false>;
template <std::floating_point T>
using BasicAdamW = BasicAdamFamily<T, true>;
using Adam = BasicAdam<double>;
using AdamW = BasicAdamW<double>;

}  // namespace fusegrad::optim
