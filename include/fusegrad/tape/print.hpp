// tape/print.hpp -- operator<< for tensors, laid out as PyTorch prints them.
#pragma once

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstddef>
#include <ostream>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include <fusegrad/concepts.hpp>
#include <fusegrad/shape/extents.hpp>
#include <fusegrad/tape/tensor.hpp>

namespace fusegrad {

namespace detail {

// Writes values of the given extents as nested brackets, rows aligned, PyTorch's layout:
//   tensor([[1, 2],
//           [3, 4]])
// Axes longer than 2 * edge_items are shown as their first and last edge_items entries
// around "..." when the tensor has more than summarize_above values, as PyTorch does.
template <class T>
class tensor_layout {
 public:
  static constexpr std::size_t summarize_above = 1000, edge_items = 3;

  tensor_layout(const T* values, const Extents& extents, const std::ostream& format)
      : values_(values), extents_(extents), summarized_(extents.size() > summarize_above) {
    format_.copyfmt(format);
    strides_.assign(extents.rank(), 1);
    for (std::size_t axis = extents.rank(); axis-- > 1;) strides_[axis - 1] = strides_[axis] * extents[axis];
    visit(0, 0, [&](std::size_t offset) { width_ = std::max(width_, cell(offset).size()); });
  }

  // `indent`: the column where the outermost bracket stands ("tensor(" before it).
  void write(std::ostream& os, std::size_t indent) const { write_axis(os, 0, 0, indent + 1); }

 private:
  // The indices shown along `axis`, with npos where "..." stands.
  [[nodiscard]] std::vector<std::size_t> shown(std::size_t axis) const {
    const std::size_t n = extents_[axis];
    std::vector<std::size_t> out;
    if (!summarized_ || n <= 2 * edge_items) {
      for (std::size_t i = 0; i < n; ++i) out.push_back(i);
    } else {
      for (std::size_t i = 0; i < edge_items; ++i) out.push_back(i);
      out.push_back(npos);
      for (std::size_t i = n - edge_items; i < n; ++i) out.push_back(i);
    }
    return out;
  }
  template <class F>
  void visit(std::size_t axis, std::size_t offset, F&& f) const {
    if (axis == extents_.rank()) {
      f(offset);
      return;
    }
    for (std::size_t i : shown(axis))
      if (i != npos) visit(axis + 1, offset + i * strides_[axis], f);
  }
  [[nodiscard]] std::string cell(std::size_t offset) const {
    std::ostringstream s;
    s.copyfmt(format_);
    s.width(0);
    // NaN is "nan" whatever its sign bit, as PyTorch writes it (the C library writes 0/0 on x86 as "-nan").
    const auto number = [](auto v) { return std::isnan(v) ? std::abs(v) : v; };
    if constexpr (std::is_floating_point_v<T>) {
      s << number(values_[offset]);
    } else {  // complex: re+imj, as NumPy and PyTorch write it
      const auto im = number(values_[offset].imag());
      s << number(values_[offset].real()) << (im < 0 ? "" : "+") << im << 'j';
    }
    return s.str();
  }
  void write_axis(std::ostream& os, std::size_t axis, std::size_t offset, std::size_t column) const {
    if (axis == extents_.rank()) {
      const std::string text = cell(offset);
      os << std::string(width_ - text.size(), ' ') << text;
      return;
    }
    os << '[';
    const std::vector<std::size_t> indices = shown(axis);
    const bool innermost = axis + 1 == extents_.rank();
    for (std::size_t k = 0; k < indices.size(); ++k) {
      if (k > 0) {
        os << ',';
        if (innermost) {
          os << ' ';
        } else {  // a new line per sub-array, a blank line more per axis above the rows
          os << std::string(extents_.rank() - axis - 1, '\n') << std::string(column + 1, ' ');
        }
      }
      if (indices[k] == npos)
        os << "...";
      else
        write_axis(os, axis + 1, offset + indices[k] * strides_[axis], column + 1);
    }
    os << ']';
  }

  static constexpr std::size_t npos = static_cast<std::size_t>(-1);
  const T* values_;
  const Extents& extents_;
  bool summarized_;
  std::vector<std::size_t> strides_;
  std::size_t width_ = 0;
  std::ostringstream format_;  // the caller's precision and flags
};

}  // namespace detail

/// Prints a tensor as PyTorch does: `tensor([[1, 2],\n        [3, 4]], grad_fn=MulBackward)`.
/// Values use the stream's precision and flags (std::setprecision, std::fixed ...), aligned in
/// columns; tensors of more than 1000 values show the first and last 3 entries of each long
/// axis around "...". A leaf that requires grad says so; a float tensor names its type.
template <Scalar T>
std::ostream& operator<<(std::ostream& os, const BasicTensor<T>& t) {
  if (!t.defined()) return os << "tensor(undefined)";
  std::ostringstream out;  // built aside, so the caller's width applies to the whole text
  out << "tensor(";
  if (t.numel() == 0 && t.dim() != 1)  // PyTorch's form: no brackets can show an empty axis that is not the only one
    out << "[], size=" << t.shape().to_string();
  else
    detail::tensor_layout<T>(t.data(), t.shape(), os).write(out, 6);
  if (!t.is_leaf())
    out << ", grad_fn=" << t.grad_fn_name();
  else if (t.requires_grad())
    out << ", requires_grad=true";
  if constexpr (std::is_same_v<T, float>)
    out << ", dtype=float";
  else if constexpr (!std::is_same_v<T, double>)
    out << ", dtype=complex";
  out << ')';
  return os << out.str();
}

}  // namespace fusegrad
