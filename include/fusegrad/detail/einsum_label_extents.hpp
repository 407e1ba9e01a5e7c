// detail/einsum_label_extents.hpp -- an einsum's operands and terms as arrays laid out along labels, and what the
// extents of the labels alone decide about them: sizes, strides, broadcast axes, copies in another axis order and
// the scatter of an operand's gradient. The contraction (einsum_contraction.hpp) and each operand's VJP use them.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <span>
#include <vector>

#include <fusegrad/detail/buffer.hpp>
#include <fusegrad/detail/einsum_plan.hpp>
#include <fusegrad/detail/fixed_list.hpp>
#include <fusegrad/detail/strided_walk.hpp>
#include <fusegrad/shape/einsum_subscripts.hpp>
#include <fusegrad/shape/extents.hpp>

namespace fusegrad::detail {

static_assert(einsum_labels <= max_walk_rank, "an einsum's walks cover every label");

// Lists of at most one item per label, which a contraction fills many times over: on the stack, not the heap.
using einsum_label_list = fixed_list<einsum_label, einsum_labels>;
template <class V>
using per_label_list = fixed_list<V, einsum_labels>;

// One operand of an evaluation: row-major values, and per axis a label and an extent. A label
// may name several axes (a diagonal); an axis of extent 1 under a label of a larger extent is
// broadcast.
template <class T>
struct einsum_input {
  const T* data;
  std::span<const einsum_label> labels;
  std::span<const std::size_t> extents;
};

inline einsum_label_set labels_to_set(std::span<const einsum_label> labels) {
  einsum_label_set s = 0;
  for (einsum_label l : labels) s |= einsum_label_set(1) << l;
  return s;
}

// An operand or an intermediate result while contracting: distinct labels, one per axis, and
// values (its own, or an operand's).
template <class T>
struct einsum_term_values {
  einsum_label_list labels;
  value_vector<T> owned;  // memory that runs out is a memory_error
  const T* data = nullptr;

  [[nodiscard]] einsum_label_set label_set() const { return labels_to_set(labels); }
};

// The row-major strides of an operand's axes.
template <class T>
std::array<std::ptrdiff_t, Extents::max_rank> axis_strides(const einsum_input<T>& in) {
  std::array<std::ptrdiff_t, Extents::max_rank> strides{};
  std::ptrdiff_t stride = 1;
  for (std::size_t a = in.extents.size(); a-- > 0;) {
    strides[a] = stride;
    stride *= std::ptrdiff_t(in.extents[a]);
  }
  return strides;
}

// The extent of every label of one einsum.
class einsum_label_extents {
 public:
  explicit einsum_label_extents(const std::array<std::size_t, einsum_labels>& extent) : extent_(extent) {}

  [[nodiscard]] std::size_t operator[](einsum_label l) const { return extent_[l]; }
  [[nodiscard]] const std::array<std::size_t, einsum_labels>& all() const { return extent_; }

  // Whether an operand's axis is broadcast: extent 1 under a label of another extent.
  template <class T>
  [[nodiscard]] bool broadcast_axis(const einsum_input<T>& in, std::size_t axis) const {
    return in.extents[axis] == 1 && extent_[in.labels[axis]] != 1;
  }

  // The number of elements of an array laid out along `labels`.
  [[nodiscard]] std::size_t size_of(einsum_label_set labels) const {
    std::size_t n = 1;
    for (; labels; labels &= labels - 1) n *= extent_[std::size_t(std::countr_zero(labels))];
    return n;
  }

  // The row-major strides of an array laid out along distinct `labels`.
  [[nodiscard]] per_label_list<std::ptrdiff_t> strides_of(std::span<const einsum_label> labels) const {
    per_label_list<std::ptrdiff_t> strides;
    strides.count = labels.size();
    std::ptrdiff_t stride = 1;
    for (std::size_t j = labels.size(); j-- > 0;) {
      strides[j] = stride;
      stride *= std::ptrdiff_t(extent_[labels[j]]);
    }
    return strides;
  }

  // Writes t's values into `out`, laid out along `labels` (row-major); a label t lacks is broadcast.
  template <class T>
  void copy_into(const einsum_term_values<T>& t, std::span<const einsum_label> labels, T* out) const {
    const per_label_list<std::ptrdiff_t> from = strides_of(t.labels), to = strides_of(labels);
    per_label_list<std::size_t> extents;
    per_label_list<std::ptrdiff_t> src;
    for (einsum_label l : labels) {
      extents.push_back(extent_[l]);
      const auto at = std::find(t.labels.begin(), t.labels.end(), l);
      src.push_back(at == t.labels.end() ? 0 : from[std::size_t(at - t.labels.begin())]);
    }
    strided_walk<false>(std::span<const std::size_t>(extents), std::span<const std::ptrdiff_t>(src),
                        std::span<const std::ptrdiff_t>(to), t.data, out);
  }

  // The labels of an operand's gradient as a term: each label once, broadcast axes left out (the gradient sums
  // over them). When they are the operand's axes as they are, the gradient may be computed in its place.
  template <class T>
  [[nodiscard]] einsum_label_list gradient_labels(const einsum_input<T>& in) const {
    einsum_label_list labels;
    for (std::size_t a = 0; a < in.labels.size(); ++a)
      if (!broadcast_axis(in, a) && std::find(labels.begin(), labels.end(), in.labels[a]) == labels.end())
        labels.push_back(in.labels[a]);
    return labels;
  }

  // Writes the gradient g of an operand's term into dx, laid out as the operand: broadcast along the labels
  // g lacks (summed out of the term), along the diagonal where the operand repeats a label (zero elsewhere).
  // g already holds the sum over a broadcast axis' label, which the term never had.
  template <class T>
  void scatter_gradient(const einsum_input<T>& in, const einsum_term_values<T>& g, T* dx) const {
    if (g.data == dx) return;  // computed in place
    const std::size_t rank = in.labels.size();
    const auto axis_stride = axis_strides(in);
    const per_label_list<std::ptrdiff_t> g_strides = strides_of(g.labels);
    einsum_label_list distinct;
    per_label_list<std::size_t> walk_extents;
    per_label_list<std::ptrdiff_t> src, dst;
    bool diagonal = false;
    for (std::size_t a = 0; a < rank; ++a) {
      if (broadcast_axis(in, a)) continue;
      const auto at = std::find(distinct.begin(), distinct.end(), in.labels[a]);
      if (at != distinct.end()) {
        diagonal = true;
        dst[std::size_t(at - distinct.begin())] += axis_stride[a];
        continue;
      }
      distinct.push_back(in.labels[a]);
      walk_extents.push_back(extent_[in.labels[a]]);
      dst.push_back(axis_stride[a]);
      const auto in_g = std::find(g.labels.begin(), g.labels.end(), in.labels[a]);
      src.push_back(in_g == g.labels.end() ? 0 : g_strides[std::size_t(in_g - g.labels.begin())]);
    }
    if (diagonal) std::fill_n(dx, rank == 0 ? 1 : std::size_t(axis_stride[0]) * in.extents[0], T(0));
    strided_walk<false>(std::span<const std::size_t>(walk_extents), std::span<const std::ptrdiff_t>(src),
                        std::span<const std::ptrdiff_t>(dst), g.data, dx);
  }

 private:
  const std::array<std::size_t, einsum_labels>& extent_;
};

}  // namespace fusegrad::detail
