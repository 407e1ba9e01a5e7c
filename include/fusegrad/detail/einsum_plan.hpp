// detail/einsum_plan.hpp -- the order in which einsum contracts its operands: the cheapest of all, or greedily.
#pragma once

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <utility>
#include <vector>

#include <fusegrad/shape/einsum_subscripts.hpp>

namespace fusegrad::detail {

using einsum_label_set = std::uint64_t;  // labels as bits

// The planner knows the operands of a contraction as the bits of a word.
inline constexpr std::size_t max_einsum_operands = 64;

// One pairwise contraction of a plan: the results covering the operands `left` and `right`
// (bit k: operand k), contracted into one that holds the labels `keep`.
struct einsum_step {
  std::uint64_t left, right;
  einsum_label_set keep;
};
// The order in which einsum contracts its operands, and its cost: the multiply-adds of its
// contractions, each the product of the extents of the labels its two operands hold.
struct einsum_plan {
  std::vector<einsum_step> steps;
  double cost = 0;

  // The step whose result covers these operands.
  [[nodiscard]] std::size_t step_of(std::uint64_t covers) const {
    std::size_t i = 0;
    while (i < steps.size() && (steps[i].left | steps[i].right) != covers) ++i;
    return i;
  }
};

inline double einsum_cost(einsum_label_set labels, const std::array<std::size_t, einsum_labels>& extent) {
  double n = 1;
  for (; labels; labels &= labels - 1) n *= double(extent[std::size_t(std::countr_zero(labels))]);
  return n;
}

// Up to this many operands the plan is the cheapest order of all; beyond, greedy.
inline constexpr std::size_t max_optimal_operands = 8;

// Plans the contraction of operands holding the labels `sets` into a result holding `output`:
// the cheapest order of all for up to max_optimal_operands (dynamic programming over subsets, as
// opt_einsum's "optimal" path), the cheapest pair first beyond (its "greedy" path).
inline einsum_plan plan_einsum(std::span<const einsum_label_set> sets, einsum_label_set output,
                               const std::array<std::size_t, einsum_labels>& extent) {
  const std::size_t n = sets.size();
  einsum_plan plan;
  if (n <= 1) return plan;
  if (n <= max_optimal_operands) {
    // On the stack: an einsum of a few small operands is planned on every call, and the plan
    // should cost little beside its contractions.
    constexpr std::size_t max_subsets = std::size_t(1) << max_optimal_operands;
    const std::size_t subsets = std::size_t(1) << n;
    std::array<einsum_label_set, max_subsets> labels_of, kept;
    std::array<double, max_subsets> cost;
    std::array<std::size_t, max_subsets> split;
    labels_of[0] = 0;
    for (std::size_t s = 1; s < subsets; ++s)
      labels_of[s] = labels_of[s & (s - 1)] | sets[std::size_t(std::countr_zero(s))];
    // What a result covering s keeps: its labels that the output or an operand outside s holds.
    for (std::size_t s = 1; s < subsets; ++s) kept[s] = labels_of[s] & (output | labels_of[(subsets - 1) & ~s]);
    for (std::size_t s = 1; s < subsets; ++s) {
      cost[s] = 0;
      if ((s & (s - 1)) == 0) continue;  // one operand
      split[s] = s & (~s + 1);           // a valid split even if every cost overflows to infinity
      cost[s] = std::numeric_limits<double>::infinity();
      const std::size_t lowest = split[s];
      for (std::size_t a = (s - 1) & s; a; a = (a - 1) & s) {
        if (!(a & lowest)) continue;  // each split once: `a` holds the lowest operand
        const std::size_t b = s & ~a;
        const double c = cost[a] + cost[b] + einsum_cost(kept[a] | kept[b], extent);
        if (c < cost[s]) {
          cost[s] = c;
          split[s] = a;
        }
      }
    }
    // The steps in post-order: a step's operands are done before it. The stack holds two entries
    // per level of the tree (an expanded step and its pending right side): 2n - 1 at most.
    plan.steps.reserve(n - 1);
    std::array<std::pair<std::size_t, bool>, 2 * max_optimal_operands - 1> stack;
    std::size_t depth = 0;
    stack[depth++] = {subsets - 1, false};
    while (depth > 0) {
      const auto [s, expanded] = stack[--depth];
      if ((s & (s - 1)) == 0) continue;
      const std::size_t a = split[s], b = s & ~a;
      if (expanded) {
        plan.steps.push_back({a, b, kept[s]});
        continue;
      }
      stack[depth++] = {s, true};
      stack[depth++] = {b, false};
      stack[depth++] = {a, false};
    }
    plan.cost = cost[subsets - 1];
    return plan;
  }
  std::vector<std::pair<std::uint64_t, einsum_label_set>> alive;  // what each result covers, and holds
  for (std::size_t k = 0; k < n; ++k) alive.emplace_back(std::uint64_t(1) << k, sets[k]);
  while (alive.size() > 1) {
    std::size_t best_i = 0, best_j = 1;
    double best = std::numeric_limits<double>::infinity();
    for (std::size_t i = 0; i < alive.size(); ++i)
      for (std::size_t j = i + 1; j < alive.size(); ++j) {
        const double c = einsum_cost(alive[i].second | alive[j].second, extent);
        if (c < best) {
          best = c;
          best_i = i;
          best_j = j;
        }
      }
    einsum_label_set others = output;
    for (std::size_t k = 0; k < alive.size(); ++k)
      if (k != best_i && k != best_j) others |= alive[k].second;
    const einsum_label_set keep = (alive[best_i].second | alive[best_j].second) & others;
    plan.steps.push_back({alive[best_i].first, alive[best_j].first, keep});
    plan.cost += best;
    alive[best_i] = {alive[best_i].first | alive[best_j].first, keep};
    alive.erase(alive.begin() + std::ptrdiff_t(best_j));
  }
  return plan;
}

}  // namespace fusegrad::detail
