// detail/einsum_engine.hpp -- evaluating an einsum: diagonals and sums per operand, then pairwise contractions on
// Eigen's GEMM in an order chosen by cost, then the result's axes in order.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include <fusegrad/detail/einsum_contraction.hpp>

namespace fusegrad::detail {

// The einsum of `inputs` with the labels `output` (which may include labels no input has: broadcast, of the extent
// `extent` gives), written into out (the output's labels in order, row-major). The terms are contracted pairwise in
// the order their plan picks, the last product straight into `out` when it comes out in the output's axis order.
template <class T>
void einsum_evaluate(std::span<const einsum_input<T>> inputs, std::span<const einsum_label> output,
                     const std::array<std::size_t, einsum_labels>& extent, T* out) {
  const einsum_contraction<T> einsum(inputs, output, extent);
  auto [terms, plan] = einsum.planned_terms();
  // Each step's operands and result are known by the operands they cover (bit k: operand k).
  std::vector<std::pair<std::uint64_t, einsum_term_values<T>>> done;
  for (std::size_t k = 0; k < terms.size(); ++k) done.emplace_back(std::uint64_t(1) << k, std::move(terms[k]));
  const auto take = [&](std::uint64_t covers) {
    const auto at = std::find_if(done.begin(), done.end(), [&](const auto& d) { return d.first == covers; });
    einsum_term_values<T> t = std::move(at->second);
    done.erase(at);
    return t;
  };
  for (const einsum_step& step : plan.steps) {
    const einsum_term_values<T> left = take(step.left);
    const einsum_term_values<T> right = take(step.right);
    const bool last = &step == &plan.steps.back();
    done.emplace_back(step.left | step.right, einsum.contract(left, right, step.keep, last ? out : nullptr, output));
  }
  const einsum_term_values<T>& result = done.front().second;
  if (result.data != out) einsum.label_extents().copy_into(result, output, out);  // in the output's axis order
}

}  // namespace fusegrad::detail
