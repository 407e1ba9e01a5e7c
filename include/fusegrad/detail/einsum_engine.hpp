// detail/einsum_engine.hpp -- evaluating an einsum: diagonals and sums per operand, then pairwise contractions on
// Eigen's GEMM in an order chosen by cost, then the result's axes in order.
#pragma once

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include <fusegrad/detail/einsum_contraction.hpp>

namespace fusegrad::detail {

// The einsum of `inputs` with the labels `output` (which may include labels no input has: broadcast, of the extent
// `extent` gives), written into out (the output's labels in order, row-major). The terms are contracted pairwise in
// the order their plan picks, the last product straight into `out` when it comes out in the output's axis order.
// With `keep`, the terms, the plan and the intermediate products stay there for the backward pass; without, each
// product is freed once the step that reads it is done.
template <class T>
void einsum_evaluate(std::span<const einsum_input<T>> inputs, std::span<const einsum_label> output,
                     const std::array<std::size_t, einsum_labels>& extent, T* out, einsum_saved<T>* keep = nullptr) {
  const einsum_contraction<T> einsum(inputs, output, extent);
  einsum_saved<T> own;
  einsum_saved<T>& state = keep ? *keep : own;
  state.planned = einsum.planned_terms();
  const std::vector<einsum_term_values<T>>& terms = state.planned.terms;
  const einsum_plan& plan = state.planned.plan;
  einsum_products<T>& products = state.products;
  products.assign(plan.steps.size(), std::nullopt);
  // A result is known by the operands it covers (bit k: operand k): an operand's term, or a step's product.
  const auto result = [&](std::uint64_t covers) -> std::optional<einsum_term_values<T>>& {
    return products[plan.step_of(covers)];
  };
  const auto value_of = [&](std::uint64_t covers) -> const einsum_term_values<T>& {
    return std::has_single_bit(covers) ? terms[std::size_t(std::countr_zero(covers))] : *result(covers);
  };
  for (std::size_t i = 0; i < plan.steps.size(); ++i) {
    const einsum_step& step = plan.steps[i];
    const bool last = i + 1 == plan.steps.size();
    products[i] = einsum.contract(value_of(step.left), value_of(step.right), step.keep, last ? out : nullptr, output);
    if (!keep)
      for (const std::uint64_t operand : {step.left, step.right})
        if (!std::has_single_bit(operand)) result(operand).reset();
  }
  const einsum_term_values<T>& y = plan.steps.empty() ? terms.front() : *products.back();
  if (y.data != out) einsum.label_extents().copy_into(y, output, out);  // in the output's axis order
  if (!plan.steps.empty()) products.back().reset();                     // the result itself is out
}

}  // namespace fusegrad::detail
