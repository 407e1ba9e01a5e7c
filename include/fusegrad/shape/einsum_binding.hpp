// shape/einsum_binding.hpp -- einsum's parsed subscripts bound to the operands' shapes: each axis's label, each
// label's extent, the output's axes; at compile time from shape traits or at run time from extents, by the same
// constexpr function, which words every mismatch.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include <fusegrad/detail/message_text.hpp>
#include <fusegrad/shape/einsum_subscripts.hpp>
#include <fusegrad/shape/extents.hpp>

namespace fusegrad::detail {

// What is known of an operand's shape: at run time everything; at compile time its rank, or
// not (AnyShape), and each extent, or dyn.
struct einsum_operand_shape {
  bool rank_known = true;
  std::size_t rank = 0;
  std::array<std::size_t, Extents::max_rank> extents{};
};

// Subscripts bound to N operands' shapes: each axis's label, each label's extent (dyn when
// unknown), the output's labels. `error` is empty unless the shapes do not fit the subscripts.
template <std::size_t N>
struct einsum_binding {
  std::array<std::array<einsum_label, Extents::max_rank>, N> axis_labels{};
  std::array<std::size_t, N> ranks{};
  std::array<einsum_label, Extents::max_rank> output{};
  std::size_t output_rank = 0;
  bool output_rank_known = true;                    // false when "..." covers an operand of unknown rank
  std::array<std::size_t, einsum_labels> extent{};  // of each label used; 1 for a label of no operand
  std::uint64_t used = 0;                           // the labels some operand has, as bits
  message_text error;
};

// Fills `bound`, which starts as a default einsum_binding. bind_einsum returns it as its one named result,
// built in place and never copied: a binding is about a kilobyte, and every evaluation binds.
template <std::size_t N>
constexpr void bind_einsum_into(einsum_binding<N>& bound, std::string_view text, const einsum_subscripts<N>& parsed,
                                std::span<const einsum_operand_shape, N> shapes) {
  const auto fail = [&](const message_text& why) { bound.error = einsum_error_prefix(text) + why.view(); };
  bound.extent.fill(1);
  // How many axes "..." covers in each operand, and at most.
  std::array<std::size_t, N> ellipsis_rank{};
  std::size_t broadcast_rank = 0;
  bool ellipsis_rank_known = true;
  for (std::size_t k = 0; k < N; ++k) {
    const einsum_term& term = parsed.inputs[k];
    if (!shapes[k].rank_known) {
      if (term.ellipsis >= 0) ellipsis_rank_known = false;
      continue;
    }
    const std::size_t rank = shapes[k].rank;
    if (term.ellipsis < 0 ? rank != term.count : rank < term.count) {
      message_text why = "operand ";
      append_number(why, k);
      why += " has rank ";
      append_number(why, rank);
      why += " but ";
      append_number(why, term.count);
      why += term.count == 1 ? " subscript" : " subscripts";
      why += term.ellipsis < 0 ? "; give one per axis, or \"...\" for the rest" : " besides \"...\"";
      return fail(why);
    }
    ellipsis_rank[k] = rank - term.count;
    broadcast_rank = std::max(broadcast_rank, ellipsis_rank[k]);
  }
  // Each axis's label, each label's extent. A label's extents agree across operands, or are
  // 1 (broadcast, as PyTorch allows); inside one operand they are equal (a diagonal).
  std::array<std::size_t, einsum_labels> seen_in{};  // the operand that set a label's extent
  for (std::size_t k = 0; k < N; ++k) {
    const einsum_term& term = parsed.inputs[k];
    if (!shapes[k].rank_known) {  // its letters' extents are unknown, unless another operand knows them
      for (std::size_t j = 0; j < term.count; ++j) {
        const einsum_label label = term.letters[j];
        if (!(bound.used >> label & 1) || bound.extent[label] == 1) bound.extent[label] = dyn;
        bound.used |= std::uint64_t(1) << label;
      }
      bound.ranks[k] = term.count;  // unknown; what the letters name
      continue;
    }
    bound.ranks[k] = shapes[k].rank;
    for (std::size_t axis = 0, letter = 0; axis < shapes[k].rank; ++axis) {
      einsum_label label{};
      if (term.ellipsis >= 0 && axis >= std::size_t(term.ellipsis) &&
          axis < std::size_t(term.ellipsis) + ellipsis_rank[k])
        label = einsum_label(einsum_letters + broadcast_rank - ellipsis_rank[k] + (axis - std::size_t(term.ellipsis)));
      else
        label = term.letters[letter++];
      bound.axis_labels[k][axis] = label;
      const std::size_t e = shapes[k].extents[axis];
      const bool first = !(bound.used >> label & 1);
      bound.used |= std::uint64_t(1) << label;
      // A repeated label in this operand: a diagonal, its extents equal.
      for (std::size_t before = 0; before < axis; ++before)
        if (bound.axis_labels[k][before] == label) {
          const std::size_t other = shapes[k].extents[before];
          if (e != dyn && other != dyn && e != other) {
            message_text why = "label ";
            append_label(why, label);
            why += " is ";
            append_number(why, other);
            why += " and ";
            append_number(why, e);
            why += " in operand ";
            append_number(why, k);
            return fail(why + "; a label repeated in one operand takes its diagonal, so its extents must be equal");
          }
        }
      if (e == dyn) {
        if (first || bound.extent[label] == 1) bound.extent[label] = dyn;
        continue;
      }
      if (first || bound.extent[label] == dyn || bound.extent[label] == 1) {
        if (first || e != 1) {
          bound.extent[label] = e;
          seen_in[label] = k;
        }
        continue;
      }
      if (e != 1 && e != bound.extent[label]) {
        message_text why;
        if (label >= einsum_letters) {
          why = "the axes under \"...\" do not broadcast: ";
        } else {
          why = "label ";
          append_label(why, label);
          why += " is ";
        }
        append_number(why, bound.extent[label]);
        why += " in operand ";
        append_number(why, seen_in[label]);
        why += " and ";
        append_number(why, e);
        why += " in operand ";
        append_number(why, k);
        return fail(why);
      }
    }
  }
  // The output: as written, or (implicit) the "..." axes, then the letters seen once, in
  // ASCII order, as PyTorch and NumPy do.
  const auto put = [&](einsum_label label) -> bool {
    if (bound.output_rank == Extents::max_rank) return false;
    bound.output[bound.output_rank++] = label;
    return true;
  };
  bool fits = true;
  const auto put_ellipsis = [&] {
    for (std::size_t j = 0; j < broadcast_rank; ++j) fits = fits && put(einsum_label(einsum_letters + j));
  };
  if (parsed.explicit_output) {
    const einsum_term& out = parsed.output;
    for (std::size_t j = 0; j <= out.count; ++j) {
      if (std::ptrdiff_t(j) == out.ellipsis) put_ellipsis();
      if (j < out.count) fits = fits && put(out.letters[j]);
    }
    if (out.ellipsis >= 0 && !ellipsis_rank_known) bound.output_rank_known = false;
  } else {
    put_ellipsis();
    if (!ellipsis_rank_known) bound.output_rank_known = false;
    for (std::size_t label = 0; label < einsum_letters; ++label) {
      std::size_t occurrences = 0;
      for (const einsum_term& term : parsed.inputs)
        for (std::size_t j = 0; j < term.count; ++j) occurrences += term.letters[j] == label;
      if (occurrences == 1) fits = fits && put(einsum_label(label));
    }
  }
  if (!fits) return fail("the result would have more than 8 axes; tensors have rank 8 at most");
}

template <std::size_t N>
constexpr einsum_binding<N> bind_einsum(std::string_view text, const einsum_subscripts<N>& parsed,
                                        std::span<const einsum_operand_shape, N> shapes) {
  einsum_binding<N> bound;
  bind_einsum_into(bound, text, parsed, shapes);
  return bound;
}

}  // namespace fusegrad::detail
