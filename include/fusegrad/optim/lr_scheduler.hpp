// optim/lr_scheduler.hpp -- learning-rate schedules, as PyTorch's: StepLR and CosineAnnealingLR.
#pragma once

#include <cmath>
#include <concepts>
#include <numbers>
#include <string>

#include <fusegrad/concepts.hpp>
#include <fusegrad/detail/number_text.hpp>
#include <fusegrad/optim/optimizer.hpp>

namespace fusegrad::optim {

/// Multiplies the learning rate by gamma every step_size epochs (PyTorch's StepLR). Call step()
/// once per epoch, after the optimiser's steps.
///   fg::optim::StepLR schedule(opt, {.step_size = 30, .gamma = 0.1});
struct StepLROptions {
  long step_size = 0;
  double gamma = 0.1;
};
template <std::floating_point T>
class BasicStepLR {
 public:
  BasicStepLR(Optimizer<T>& optimizer, const StepLROptions& options) : optimizer_(optimizer), options_(options) {
    detail::require(options.step_size > 0,
                    "fusegrad::optim::StepLR: step_size must be > 0, not " + std::to_string(options.step_size));
    detail::require(
        std::isfinite(options.gamma) && options.gamma >= 0,
        "fusegrad::optim::StepLR: gamma must be a number >= 0, not " + fusegrad::detail::number_text(options.gamma));
    (void)optimizer.begin_schedule();  // as PyTorch's schedules do: a later CosineAnnealingLR anneals from it
  }
  /// Ends an epoch. A step that fails (a rate past the largest double) changes neither the rate nor the epoch.
  void step() {
    if ((epoch_ + 1) % options_.step_size == 0) {
      const double next = optimizer_.lr() * options_.gamma;
      if (!std::isfinite(next))
        throw value_error("fusegrad::optim::StepLR::step: epoch " + std::to_string(epoch_ + 1) +
                          " would multiply the learning rate " + fusegrad::detail::number_text(optimizer_.lr()) +
                          " by gamma " + fusegrad::detail::number_text(options_.gamma) +
                          ", past the largest double; a gamma above 1 grows the rate every step_size epochs: choose "
                          "gamma <= 1, or fewer epochs");
      optimizer_.set_lr(next);
    }
    ++epoch_;
  }
  [[nodiscard]] long epoch() const noexcept { return epoch_; }

 private:
  Optimizer<T>& optimizer_;
  StepLROptions options_;
  long epoch_ = 0;
};

/// Anneals the learning rate from the optimiser's initial_lr() (its rate when the first schedule was made on it) down
/// to eta_min along a cosine over t_max epochs, and back up over the next t_max (PyTorch's CosineAnnealingLR, whose
/// recursive form it follows step for step: it also follows a rate another schedule changed).
///   fg::optim::CosineAnnealingLR schedule(opt, {.t_max = 100});
struct CosineAnnealingLROptions {
  long t_max = 0;
  double eta_min = 0;
};
template <std::floating_point T>
class BasicCosineAnnealingLR {
 public:
  BasicCosineAnnealingLR(Optimizer<T>& optimizer, const CosineAnnealingLROptions& options)
      : optimizer_(optimizer), options_(options) {
    detail::require(options.t_max > 0,
                    "fusegrad::optim::CosineAnnealingLR: t_max must be > 0, not " + std::to_string(options.t_max));
    // PyTorch accepts a negative eta_min and then steps uphill; an optimiser's rate here is a number >= 0.
    detail::require(std::isfinite(options.eta_min) && options.eta_min >= 0,
                    "fusegrad::optim::CosineAnnealingLR: eta_min must be a number >= 0, not " +
                        fusegrad::detail::number_text(options.eta_min));
    base_lr_ = optimizer.begin_schedule();  // once the settings hold: a refused schedule records nothing
  }
  /// Ends an epoch. A step that fails changes neither the rate nor the epoch. From a rate below eta_min (set by hand
  /// or by another schedule) the rising half of the cosine steps further down, as in PyTorch; a step that would take
  /// the rate below 0, which PyTorch allows and an optimiser here refuses, throws value_error.
  void step() {
    const long epoch = epoch_ + 1;
    const double pi = std::numbers::pi, t_max = double(options_.t_max), e = double(epoch);
    const double lr = optimizer_.lr(), base = base_lr_, eta_min = options_.eta_min;
    // PyTorch's (epoch - 1 - t_max) % (2 * t_max) == 0, without computing 2 * t_max, which overflows past LONG_MAX / 2.
    const long from_trough = epoch - 1 - options_.t_max;
    const bool rises_from_eta_min = from_trough % options_.t_max == 0 && (from_trough / options_.t_max) % 2 == 0;
    const double next =
        rises_from_eta_min
            ? lr + (base - eta_min) * (1 - std::cos(pi / t_max)) / 2
            : (1 + std::cos(pi * e / t_max)) / (1 + std::cos(pi * (e - 1) / t_max)) * (lr - eta_min) + eta_min;
    if (!std::isfinite(next))  // a rate near the largest double, set by hand or by another schedule
      throw value_error("fusegrad::optim::CosineAnnealingLR::step: epoch " + std::to_string(epoch) +
                        " of the cosine from the learning rate " + fusegrad::detail::number_text(lr) + " gives " +
                        fusegrad::detail::number_text(next) + "; set a finite rate of a sensible size to go on");
    if (next < 0)
      throw value_error("fusegrad::optim::CosineAnnealingLR::step: the learning rate " +
                        fusegrad::detail::number_text(lr) + " is below eta_min " +
                        fusegrad::detail::number_text(eta_min) + " (set by hand or by another schedule), and epoch " +
                        std::to_string(epoch) + " of the cosine would take it to " +
                        fusegrad::detail::number_text(next) + ", below 0; set a rate >= eta_min to go on");
    optimizer_.set_lr(next);
    epoch_ = epoch;
  }
  [[nodiscard]] long epoch() const noexcept { return epoch_; }

 private:
  Optimizer<T>& optimizer_;
  CosineAnnealingLROptions options_;
  double base_lr_ = 0;  // the optimiser's initial_lr()
  long epoch_ = 0;
};

using StepLR = BasicStepLR<double>;
using CosineAnnealingLR = BasicCosineAnnealingLR<double>;

}  // namespace fusegrad::optim
