// detail/tensor_layout.hpp -- values of given extents laid out as PyTorch prints a tensor: what operator<< writes for
// Tensors (tape/print.hpp) and for static expressions (expr/print.hpp).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <ostream>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include <fusegrad/shape/extents.hpp>

namespace fusegrad::detail {

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

  // `bracket_column`: the column where the outermost bracket stands (7, after "tensor("). No values and more than one
  // axis print as PyTorch prints them, "[], size=(0, 2)": no brackets can show an empty axis that is not the only one.
  void write(std::ostream& os, std::size_t bracket_column) const {
    if (extents_.size() == 0 && extents_.rank() != 1)
      os << "[], size=" << extents_.to_string();
    else
      write_axis(os, 0, 0, bracket_column);
  }

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

}  // namespace fusegrad::detail
