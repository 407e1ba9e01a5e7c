// detail/einsum_backward.hpp -- the gradients of an einsum's operands at once, backward through the pairwise
// contractions of its forward plan, so that they share the intermediate products.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>

#include <fusegrad/detail/einsum_contraction.hpp>

namespace fusegrad::detail {

// Writes into dx[k] the gradient of operand k for the upstream dy (shaped as the output), for every k whose dx[k]
// is not null. A contraction's gradient with respect to one side is the contraction of its gradient with the other
// side; for "ij,jk,kl->il", B C is computed once, not once per operand's einsum, and not at all when the forward
// evaluation kept it (`saved`, whose terms, plan and products the pass then takes over).
template <class T>
class einsum_backward_pass {
 public:
  einsum_backward_pass(const einsum_contraction<T>& einsum, std::span<T* const> dx, einsum_saved<T>* saved = nullptr)
      : einsum_(einsum), dx_(dx) {
    if (saved && !saved->products.empty() && saved->products.size() == saved->planned.plan.steps.size()) {
      planned_ = std::move(saved->planned);
      products_ = std::move(saved->products);
    } else {
      planned_ = einsum.planned_terms();
      products_.resize(planned_.plan.steps.size());
    }
    for (std::size_t k = 0; k < dx.size(); ++k)
      if (dx[k]) wanted_ |= std::uint64_t(1) << k;
  }

  void run(const T* dy) {
    einsum_term_values<T> upstream;
    upstream.labels.append(einsum_.output());
    upstream.data = dy;
    send_back(~std::uint64_t(0) >> (64 - planned_.terms.size()), upstream);  // the root covers every operand
  }

 private:
  // The step whose result covers these operands (bit k: operand k).
  [[nodiscard]] std::size_t step_of(std::uint64_t covers) const { return planned_.plan.step_of(covers); }
  [[nodiscard]] einsum_label_set labels_of(std::uint64_t covers) const {
    if (std::has_single_bit(covers)) return planned_.terms[std::size_t(std::countr_zero(covers))].label_set();
    return planned_.plan.steps[step_of(covers)].keep;
  }

  // The result covering `covers`: an operand's term, or an intermediate product, computed when a gradient first
  // needs it.
  const einsum_term_values<T>& value_of(std::uint64_t covers) {
    if (std::has_single_bit(covers)) return planned_.terms[std::size_t(std::countr_zero(covers))];
    const std::size_t i = step_of(covers);
    if (!products_[i]) {
      const einsum_step& step = planned_.plan.steps[i];
      products_[i] = einsum_.contract(value_of(step.left), value_of(step.right), step.keep);
    }
    return *products_[i];
  }

  // Given the gradient of the result covering `covers`, the gradients of the two results it was contracted from,
  // down to the operands.
  void send_back(std::uint64_t covers, const einsum_term_values<T>& gradient) {
    if (std::has_single_bit(covers)) {  // an operand (unwanted only as the root of a one-operand einsum)
      const auto k = std::size_t(std::countr_zero(covers));
      if (dx_[k]) einsum_.label_extents().scatter_gradient(einsum_.inputs()[k], gradient, dx_[k]);
      return;
    }
    const einsum_step& step = planned_.plan.steps[step_of(covers)];
    if (step.left & wanted_) {
      const auto [into, labels] = gradient_target(step.left);
      send_back(step.left, einsum_.contract(gradient, value_of(step.right), labels_of(step.left), into, labels));
    }
    if (step.right & wanted_) {
      const auto [into, labels] = gradient_target(step.right);
      send_back(step.right, einsum_.contract(value_of(step.left), gradient, labels_of(step.right), into, labels));
    }
  }

  // Where the gradient of the result covering `covers` may be written as contract() computes it: an operand's own
  // gradient array when its term's labels are the operand's axes as they are (no diagonal, broadcast axis or summed
  // label), so that no copy follows; nowhere otherwise.
  std::pair<T*, std::span<const einsum_label>> gradient_target(std::uint64_t covers) const {
    if (!std::has_single_bit(covers)) return {nullptr, {}};
    const auto k = std::size_t(std::countr_zero(covers));
    const std::span<const einsum_label> axes = einsum_.inputs()[k].labels;
    if (!std::ranges::equal(planned_.terms[k].labels, axes)) return {nullptr, {}};
    return {dx_[k], axes};
  }

  const einsum_contraction<T>& einsum_;
  einsum_planned_terms<T> planned_;
  einsum_products<T> products_;  // per step of the plan
  std::span<T* const> dx_;
  std::uint64_t wanted_ = 0;  // bit k: operand k's gradient is asked for
};

// The gradients of the einsum of `inputs` with the labels `output`, for the upstream dy: into dx[k] for every
// operand k whose dx[k] is not null, reading what the forward evaluation kept in `saved`.
template <class T>
void einsum_backward(std::span<const einsum_input<T>> inputs, std::span<const einsum_label> output,
                     const std::array<std::size_t, einsum_labels>& extent, const T* dy, std::span<T* const> dx,
                     einsum_saved<T>* saved = nullptr) {
  const einsum_contraction<T> einsum(inputs, output, extent);
  einsum_backward_pass<T>(einsum, dx, saved).run(dy);
}

}  // namespace fusegrad::detail
