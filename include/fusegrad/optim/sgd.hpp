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
    detail::for_each_block(std::size_t(p.size()), [&](Eigen::Index at, Eigen::Index n) {
      auto x = p.segment(at, n);
      // d, the gradient, is an expression read where it is used (all in L1); x is written last.
      const auto descend = [&](const auto& d) {
        if (!with_momentum) {
          x -= lr * d;
          return;
        }
        auto b = buffer.segment(at, n);
        if (first)
          b = d;
        else
          b = momentum * b + undamped * d;
        if (options_.nesterov)
          x -= lr * (d + momentum * b);
        else
          x -= lr * b;
      };
      if (with_weight_decay)
        descend(sign * g.segment(at, n) + weight_decay * x);
      else
        descend(sign * g.segment(at, n));
    });
  }

  SGDOptions options_;
  std::vector<Eigen::Array<T, Eigen::Dynamic, 1>> momentum_;                  // per parameter; empty without momentum
  std::vector<bool> started_ = std::vector<bool>(this->parameters().size());  // stepped at least once
};

using SGD = BasicSGD<double>;

}  // namespace fusegrad::optim
