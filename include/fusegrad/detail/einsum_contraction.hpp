// detail/einsum_contraction.hpp -- the pieces of an einsum evaluation: operands reduced to terms (diagonals taken,
// labels summed), the plan that orders their contractions, and pairwise contractions on Eigen's GEMM. Forward
// (einsum_engine.hpp) and backward (einsum_backward.hpp) are written with them.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <initializer_list>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include <Eigen/Core>

#include <fusegrad/detail/einsum_label_extents.hpp>
#include <fusegrad/detail/einsum_plan.hpp>
#include <fusegrad/detail/strided_walk.hpp>
#include <fusegrad/shape/einsum_subscripts.hpp>

namespace fusegrad::detail {

// The terms of an einsum's operands and the order in which to contract them.
template <class T>
struct einsum_planned_terms {
  std::vector<einsum_term_values<T>> terms;
  einsum_plan plan;
};

// The results of a plan's steps, by step.
template <class T>
using einsum_products = std::vector<std::optional<einsum_term_values<T>>>;

// What a forward evaluation keeps for the backward pass, which then neither reduces the operands nor plans again,
// nor computes an intermediate product again: the operands' terms, the plan, and its steps' products.
template <class T>
struct einsum_saved {
  einsum_planned_terms<T> planned;
  einsum_products<T> products;
};

// One einsum's operands, output labels and label extents, and what evaluating it forward or backward is made of.
template <class T>
class einsum_contraction {
 public:
  einsum_contraction(std::span<const einsum_input<T>> inputs, std::span<const einsum_label> output,
                     const std::array<std::size_t, einsum_labels>& extent)
      : inputs_(inputs), output_(output), extent_(extent) {}

  [[nodiscard]] std::span<const einsum_input<T>> inputs() const { return inputs_; }
  [[nodiscard]] std::span<const einsum_label> output() const { return output_; }
  [[nodiscard]] einsum_label_set output_set() const { return labels_to_set(output_); }
  [[nodiscard]] const einsum_label_extents& label_extents() const { return extent_; }

  // Every operand as a term (reduce_operand), and the plan that contracts them into the output.
  [[nodiscard]] einsum_planned_terms<T> planned_terms() const {
    einsum_planned_terms<T> planned{reduced_terms(), {}};
    std::array<einsum_label_set, max_einsum_operands> sets;  // filled up to the operand count
    for (std::size_t k = 0; k < planned.terms.size(); ++k) sets[k] = planned.terms[k].label_set();
    planned.plan =
        plan_einsum(std::span<const einsum_label_set>(sets.data(), planned.terms.size()), output_set(), extent_.all());
    return planned;
  }

  // Every operand as a term (reduce_operand), keeping the labels the output or another operand varies along.
  [[nodiscard]] std::vector<einsum_term_values<T>> reduced_terms() const {
    // The labels each operand really varies along: a broadcast axis (extent 1 under a larger
    // label) does not count.
    std::array<einsum_label_set, max_einsum_operands> varies;  // filled up to the operand count
    for (std::size_t k = 0; k < inputs_.size(); ++k) {
      varies[k] = 0;
      for (std::size_t a = 0; a < inputs_[k].labels.size(); ++a)
        if (!extent_.broadcast_axis(inputs_[k], a)) varies[k] |= einsum_label_set(1) << inputs_[k].labels[a];
    }
    std::vector<einsum_term_values<T>> terms;
    terms.reserve(inputs_.size());
    for (std::size_t k = 0; k < inputs_.size(); ++k) {
      einsum_label_set needed = output_set();
      for (std::size_t j = 0; j < inputs_.size(); ++j)
        if (j != k) needed |= varies[j];
      terms.push_back(reduce_operand(inputs_[k], needed));
    }
    return terms;
  }

  // Copies `t` with its axes in the order `labels`.
  einsum_term_values<T> permuted(const einsum_term_values<T>& t, const einsum_label_list& labels) const {
    einsum_term_values<T> out;
    out.labels = labels;
    out.owned.resize(extent_.size_of(labels_to_set(out.labels)));
    extent_.copy_into(t, out.labels, out.owned.data());
    out.data = out.owned.data();
    return out;
  }

  // C = A B over the labels both hold and no later step needs, batched over the labels both
  // hold that are kept: one GEMM per batch element. A is read in place when laid out as [batch,
  // free, contracted] or (transposed) [batch, contracted, free], B as [batch, contracted, free]
  // or (transposed) [batch, free, contracted]; any other operand is copied into the first of
  // its two layouts. With `into`, a product that comes out in the axis order `into_labels`, [batch,
  // A's free, B's free] or (as B^T A^T) [batch, B's free, A's free], is written there; `into`
  // is never an operand's memory.
  einsum_term_values<T> contract(const einsum_term_values<T>& a, const einsum_term_values<T>& b, einsum_label_set keep,
                                 T* into = nullptr, std::span<const einsum_label> into_labels = {},
                                 bool may_swap = true) const {
    const einsum_label_set in_a = a.label_set(), in_b = b.label_set();
    einsum_label_list batch, contracted, a_free, b_free;
    for (einsum_label l : a.labels) {
      const bool shared = in_b >> l & 1;
      if (shared && (keep >> l & 1))
        batch.push_back(l);
      else if (shared)
        contracted.push_back(l);
      else
        a_free.push_back(l);
    }
    for (einsum_label l : b.labels)
      if (!(in_a >> l & 1)) b_free.push_back(l);
    const auto concat = [](std::initializer_list<const einsum_label_list*> parts) {
      einsum_label_list all;
      for (const auto* p : parts) all.append(*p);
      return all;
    };
    // Whether `labels` are the parts one after another (without building the list).
    const auto laid_out_as = [](const einsum_label_list& labels,
                                std::initializer_list<const einsum_label_list*> parts) {
      std::size_t at = 0;
      for (const auto* p : parts)
        for (einsum_label l : *p)
          if (at == labels.size() || labels[at++] != l) return false;
      return at == labels.size();
    };
    std::optional<einsum_term_values<T>> a_copy, b_copy;  // made only for operands laid out otherwise
    const einsum_term_values<T>* pa = &a;
    const einsum_term_values<T>* pb = &b;
    bool a_transposed = false, b_transposed = false;
    if (!contracted.empty() && !a_free.empty() && laid_out_as(a.labels, {&batch, &contracted, &a_free})) {
      a_transposed = true;
    } else if (!laid_out_as(a.labels, {&batch, &a_free, &contracted})) {
      pa = &a_copy.emplace(permuted(a, concat({&batch, &a_free, &contracted})));
    }
    if (!contracted.empty() && !b_free.empty() && laid_out_as(b.labels, {&batch, &b_free, &contracted})) {
      b_transposed = true;
    } else if (!laid_out_as(b.labels, {&batch, &contracted, &b_free})) {
      pb = &b_copy.emplace(permuted(b, concat({&batch, &contracted, &b_free})));
    }
    const einsum_label_set shared = in_a & in_b;
    const std::size_t batches = extent_.size_of(shared & keep);
    const auto m = Eigen::Index(extent_.size_of(in_a & ~in_b));
    const auto k = Eigen::Index(extent_.size_of(shared & ~keep));
    const auto n = Eigen::Index(extent_.size_of(in_b & ~in_a));
    einsum_term_values<T> c;
    c.labels = concat({&batch, &a_free, &b_free});
    const bool in_output_order = std::ranges::equal(c.labels, into_labels);
    if (into && !in_output_order && may_swap) {
      einsum_label_list batch_of_b;
      for (einsum_label l : b.labels)
        if (std::find(batch.begin(), batch.end(), l) != batch.end()) batch_of_b.push_back(l);
      if (std::ranges::equal(concat({&batch_of_b, &b_free, &a_free}), into_labels))
        return contract(b, a, keep, into, into_labels, false);
    }
    T* c_data = into;
    if (!into || !in_output_order) {
      c.owned.resize(batches * std::size_t(m * n));
      c_data = c.owned.data();
    }
    c.data = c_data;
    using matrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
    for (std::size_t i = 0; i < batches; ++i) {
      Eigen::Map<matrix> ci(c_data + i * std::size_t(m * n), m, n);
      if (k == 0) {
        ci.setZero();
        continue;
      }
      const T* ai = pa->data + i * std::size_t(m * k);
      const T* bi = pb->data + i * std::size_t(k * n);
      const auto left = [&](auto&& rhs) {
        if (a_transposed)
          ci.noalias() = Eigen::Map<const matrix>(ai, k, m).transpose() * rhs;
        else
          ci.noalias() = Eigen::Map<const matrix>(ai, m, k) * rhs;
      };
      if (b_transposed)
        left(Eigen::Map<const matrix>(bi, n, k).transpose());
      else
        left(Eigen::Map<const matrix>(bi, k, n));
    }
    return c;
  }

 private:
  // An operand as a term: its diagonals taken, its broadcast axes dropped, and the labels no
  // other operand and not the output has summed out. An operand that needs none of that is
  // used where it is.
  einsum_term_values<T> reduce_operand(const einsum_input<T>& in, einsum_label_set needed) const {
    einsum_term_values<T> term;
    const std::size_t rank = in.labels.size();
    // Most operands (every one of a matrix product, a batched product, a chain) are used as they are: told apart
    // before any stride is worked out.
    einsum_label_set seen = 0;
    bool as_is = true;
    for (std::size_t a = 0; a < rank && as_is; ++a) {
      const einsum_label_set bit = einsum_label_set(1) << in.labels[a];
      as_is = !extent_.broadcast_axis(in, a) && !(seen & bit) && (needed & bit);
      seen |= bit;
    }
    if (as_is) {
      term.labels.append(in.labels);
      term.data = in.data;
      return term;
    }
    einsum_label_list distinct;  // in order of first appearance, broadcast axes left out
    per_label_list<std::ptrdiff_t> source_stride;
    const auto axis_stride = axis_strides(in);
    for (std::size_t a = 0; a < rank; ++a) {
      if (extent_.broadcast_axis(in, a)) continue;
      const auto at = std::find(distinct.begin(), distinct.end(), in.labels[a]);
      if (at == distinct.end()) {
        distinct.push_back(in.labels[a]);
        source_stride.push_back(axis_stride[a]);
      } else {  // a diagonal
        source_stride[std::size_t(at - distinct.begin())] += axis_stride[a];
      }
    }
    // Kept labels in their order; summed ones walked too, with no stride in the result.
    per_label_list<std::size_t> walk_extents;
    per_label_list<std::ptrdiff_t> src, dst;
    for (einsum_label l : distinct)
      if (needed >> l & 1) term.labels.push_back(l);
    const per_label_list<std::ptrdiff_t> kept_stride = extent_.strides_of(term.labels);
    for (std::size_t j = 0; j < distinct.size(); ++j) {
      walk_extents.push_back(extent_[distinct[j]]);
      src.push_back(source_stride[j]);
      const auto kept = std::find(term.labels.begin(), term.labels.end(), distinct[j]);
      dst.push_back(kept == term.labels.end() ? 0 : kept_stride[std::size_t(kept - term.labels.begin())]);
    }
    term.owned.assign(extent_.size_of(labels_to_set(term.labels)), T(0));
    strided_walk<true>(std::span<const std::size_t>(walk_extents), std::span<const std::ptrdiff_t>(src),
                       std::span<const std::ptrdiff_t>(dst), in.data, term.owned.data());
    term.data = term.owned.data();
    return term;
  }

  std::span<const einsum_input<T>> inputs_;
  std::span<const einsum_label> output_;
  einsum_label_extents extent_;
};

}  // namespace fusegrad::detail
