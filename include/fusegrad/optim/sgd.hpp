// optim/sgd.hpp -- SGD: stochastic gradient descent with momentum, Nesterov momentum and weight decay, as PyTorch's.
#pragma once

#include <cmath>
#include <concepts>
#include <cstddef>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include <Eigen/Core>

#include <fusegrad/concepts.hpp>
#include <fusegrad/detail/number_text.hpp>
#include <fusegrad/optim/optimizer.hpp>
#include <fusegrad/tape/basic_tensor.hpp>

namespace fusegrad::optim {

/// SGD's settings, PyTorch's names and defaults; lr has none and must be set.
struct SGDOptions {
  double lr = std::numeric_limits<double>::quiet_NaN();
  double momentum = 0;
  double dampening = 0;
  double weight_decay = 0;  // L2: adds weight_decay * p to the gradient
  bool nesterov = false;
  bool maximize = false;  // ascends instead
};

/// PyTorch's SGD, step for step: with g the gradient (negated to maximize) plus weight_decay * p,
/// the momentum buffer b is g at the first step and momentum * b + (1 - dampening) * g after;
/// p -= lr * (nesterov ? g + momentum * b : b), or lr * g without momentum.
///   fg::optim::SGD opt({w, b}, {.lr = 0.1, .momentum = 0.9});
///   opt.zero_grad(); loss.backward(); opt.step();
template <std::floating_point T>
class BasicSGD final : public Optimizer<T> {
 public:
  BasicSGD(std::vector<BasicTensor<T>> parameters, const SGDOptions& options)
      : Optimizer<T>(std::move(parameters), options.lr, "SGD"), options_(options) {
    const auto require = [](bool ok, const std::string& what) { detail::require(ok, "fusegrad::optim::SGD: " + what); };
    // Finite numbers: an infinite or NaN setting would turn every parameter to NaN at a step, without an error.
    require(std::isfinite(options.momentum) && options.momentum >= 0,
            "momentum must be a number >= 0, not " + fusegrad::detail::number_text(options.momentum));
    require(std::isfinite(options.dampening), "dampening must be a number (PyTorch's default is 0), not " +
                                                  fusegrad::detail::number_text(options.dampening));
    require(std::isfinite(options.weight_decay) && options.weight_decay >= 0,
            "weight_decay must be a number >= 0, not " + fusegrad::detail::number_text(options.weight_decay));
    require(!options.nesterov || (options.momentum > 0 && options.dampening == 0),
            "Nesterov momentum needs momentum > 0 and dampening 0");
    momentum_.resize(this->parameters().size());
  }

  /// The settings it runs with.
  [[nodiscard]] const SGDOptions& options() const noexcept { return options_; }

 private:
  using typename Optimizer<T>::values;
  using typename Optimizer<T>::gradient;

  // A parameter's momentum buffer is made at its first step, from that step's gradient.
  void prepare(std::size_t k, std::size_t n) override {
    if (options_.momentum != 0 && momentum_[k].size() == 0) momentum_[k].resize(Eigen::Index(n));
  }

  void update(std::size_t k, values p, gradient g) override {
    // 1 - dampening is computed in double, then rounded, as PyTorch does; which terms apply is decided on the
    // options as given (a momentum of 1e-50 is 0 as a float, and still keeps a buffer, as in PyTorch).
    const bool with_momentum = options_.momentum != 0, with_weight_decay = options_.weight_decay != 0;
    const T lr = T(this->lr()), momentum = T(options_.momentum), undamped = T(1 - options_.dampening),
            weight_decay = T(options_.weight_decay), sign = options_.maximize ? T(-1) : T(1);
    const bool first = !started_[k];
    started_[k] = true;
    auto& buffer = momentum_[k];
    // One pass over the values, a register at a time (for_each_register); x is written last.
    detail::for_each_register<T>(p.size(), [&]<class Packet>(std::type_identity<Packet>, Eigen::Index i) {
      using namespace Eigen::internal;
      const auto constant = [](T value) { return pset1<Packet>(value); };
      const Packet x = ploadu<Packet>(p.data() + i);
      Packet d = pmul(constant(sign), ploadu<Packet>(g.data() + i));  // the gradient the step follows
      if (with_weight_decay) d = padd(d, pmul(constant(weight_decay), x));
      Packet direction = d;
      if (with_momentum) {
        const Packet kept =
            first ? d : padd(pmul(constant(momentum), ploadu<Packet>(buffer.data() + i)), pmul(constant(undamped), d));
        pstoreu(buffer.data() + i, kept);
        direction = options_.nesterov ? padd(d, pmul(constant(momentum), kept)) : kept;
      }
      pstoreu(p.data() + i, psub(x, pmul(constant(lr), direction)));
    });
  }

  SGDOptions options_;
  std::vector<Eigen::Array<T, Eigen::Dynamic, 1>> momentum_;                  // per parameter; empty without momentum
  std::vector<bool> started_ = std::vector<bool>(this->parameters().size());  // stepped at least once
};

using SGD = BasicSGD<double>;

}  // namespace fusegrad::optim
