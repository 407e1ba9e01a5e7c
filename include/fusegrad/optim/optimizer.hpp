// optim/optimizer.hpp -- Optimizer: the parameters an optimiser updates, its learning rate, zero_grad, and the one pass
// over a parameter that every update rule runs in.
#pragma once

#include <cmath>
#include <concepts>
#include <cstddef>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <Eigen/Core>

#include <fusegrad/concepts.hpp>
#include <fusegrad/detail/number_text.hpp>
#include <fusegrad/error.hpp>
#include <fusegrad/tape/basic_tensor.hpp>
#include <fusegrad/tape/grad_mode.hpp>
#include <fusegrad/tape/tensor_in_place.hpp>

namespace fusegrad::optim {

namespace detail {

// Eigen's packet types carry vector attributes that g++ and clang drop, with a warning, when the types are template
// arguments; Eigen silences the same warning in its own headers.
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wignored-attributes"
#endif
// Runs f(std::type_identity<Packet>{}, i) over [0, n): at every i a SIMD register of T apart with Packet, Eigen's
// register of T, then at the last few i with Packet = T. An update written once for both (Eigen's packet functions
// take T too) reads, computes and writes every array it touches in one pass, as a loop written by hand does: memory
// serves the arrays together.
template <class T, class F>
void for_each_register(Eigen::Index n, F&& f) {
  using packet = typename Eigen::internal::packet_traits<T>::type;
  constexpr Eigen::Index lanes = Eigen::internal::unpacket_traits<packet>::size;
  Eigen::Index i = 0;
  for (; i + lanes <= n; i += lanes) f(std::type_identity<packet>{}, i);
  for (; i < n; ++i) f(std::type_identity<T>{}, i);
}
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

inline void require(bool ok, const std::string& message) {
  if (!ok) throw value_error(message);
}

}  // namespace detail

/// What every optimiser shares: the parameters it updates (handles: the caller's tensors change),
/// its learning rate, which a schedule may change, and zero_grad. Parameters are leaves that
/// require grad, each given once; a step skips one that has no gradient yet.
template <std::floating_point T>
class Optimizer {
 public:
  Optimizer(std::vector<BasicTensor<T>> parameters, double lr, const char* name)
      : parameters_(std::move(parameters)), lr_(lr), name_(name) {
    detail::require(!parameters_.empty(), std::string("fusegrad::optim::") + name_ + ": the parameter list is empty");
    // SGD's options default lr to NaN, as PyTorch's SGD has no default: an unset one reads as NaN here.
    detail::require(!std::isnan(lr), std::string("fusegrad::optim::") + name_ +
                                         ": no learning rate: it is NaN, or not set where the optimiser has no "
                                         "default (SGD); set .lr = ...");
    detail::require(std::isfinite(lr) && lr >= 0,
                    std::string("fusegrad::optim::") + name_ +
                        ": the learning rate must be a number >= 0 (set .lr = ...), not " +
                        fusegrad::detail::number_text(lr));
    for (std::size_t k = 0; k < parameters_.size(); ++k) {
      const BasicTensor<T>& p = parameters_[k];
      const std::string which = std::string("fusegrad::optim::") + name_ + ": parameter " + std::to_string(k);
      detail::require(p.defined(), which + " is an undefined tensor");
      detail::require(p.is_leaf(), which + " is computed from others (not a leaf); optimise the leaves it comes from");
      detail::require(p.requires_grad(), which + " does not require grad; call requires_grad_() on it first");
      for (std::size_t j = 0; j < k; ++j)
        detail::require(parameters_[j].impl() != p.impl(),
                        which + " is parameter " + std::to_string(j) + " again; give each parameter once");
    }
  }
  Optimizer(const Optimizer&) = delete;
  Optimizer& operator=(const Optimizer&) = delete;
  virtual ~Optimizer() = default;

  /// Updates every parameter that has a gradient, in place and unrecorded. What can fail (memory
  /// for the optimiser's state; a deferred value that reads a parameter, computed before it
  /// changes) happens before any value or state changes.
  void step() {
    const NoGradGuard unrecorded;
    std::vector<std::size_t> stepped;
    std::vector<BasicTensor<T>> grads;
    std::vector<values> destinations;
    for (std::size_t k = 0; k < parameters_.size(); ++k)
      if (BasicTensor<T> g = parameters_[k].grad(); g.defined()) {
        stepped.push_back(k);
        grads.push_back(std::move(g));
      }
    destinations.reserve(stepped.size());
    // Everything that may throw, for every parameter, before any write is counted: the state's memory, then the
    // deferred values that read a parameter.
    for (const std::size_t k : stepped) prepare(k, parameters_[k].numel());
    for (const std::size_t k : stepped) parameters_[k].impl()->storage->settle_readers();
    for (const std::size_t k : stepped) destinations.push_back(parameters_[k].mutable_eigen());
    for (std::size_t i = 0; i < stepped.size(); ++i) update(stepped[i], destinations[i], grads[i].eigen());
  }
  /// Forgets every parameter's gradient, as PyTorch's zero_grad(set_to_none=True) does: the next
  /// backward writes a fresh one.
  void zero_grad() {
    for (BasicTensor<T>& p : parameters_) p.zero_grad();
  }

  [[nodiscard]] double lr() const noexcept { return lr_; }
  /// Sets the learning rate (what a schedule does).
  void set_lr(double lr) {
    detail::require(std::isfinite(lr) && lr >= 0, std::string("fusegrad::optim::") + name_ +
                                                      "::set_lr: the learning rate must be a number >= 0, not " +
                                                      fusegrad::detail::number_text(lr));
    lr_ = lr;
  }
  /// The rate when the first schedule was made on this optimiser (PyTorch's initial_lr), which every schedule made on
  /// it anneals from; the current rate while no schedule has been made.
  [[nodiscard]] double initial_lr() const noexcept { return initial_lr_.value_or(lr_); }
  /// What a schedule calls when it is made: the first call records the rate of that moment as initial_lr().
  double begin_schedule() {
    if (!initial_lr_) initial_lr_ = lr_;
    return *initial_lr_;
  }
  [[nodiscard]] const std::vector<BasicTensor<T>>& parameters() const noexcept { return parameters_; }

 protected:
  using values = Eigen::Map<fusegrad::detail::array_t<T>>;
  using gradient = Eigen::Map<const fusegrad::detail::array_t<T>>;
  // Makes parameter k's state (n values each) before its first update.
  virtual void prepare(std::size_t k, std::size_t n) = 0;
  // Parameter k's update: its values, written in place, from its gradient.
  virtual void update(std::size_t k, values p, gradient g) = 0;

 private:
  std::vector<BasicTensor<T>> parameters_;
  double lr_;
  const char* name_;
  std::optional<double> initial_lr_;  // recorded by the first schedule made on it
};

}  // namespace fusegrad::optim
