// shape/resolve_axis.hpp -- axes and indices given at run time, as PyTorch reads them: negative counts from the end.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include <fusegrad/error.hpp>
#include <fusegrad/shape/extents.hpp>

namespace fusegrad::detail {

// Axis `axis` of a shape of rank `rank`: -1 is the last. Throws shape_error naming the axis,
// the shape and the axes it accepts. `rank` is the result's rank where the axis is one the
// result gains (unsqueeze), the operand's otherwise.
inline std::size_t resolve_axis(std::int64_t axis, std::size_t rank, const Extents& shape, std::string_view what) {
  const auto r = static_cast<std::int64_t>(rank);
  if (axis < -r || axis >= r || rank == 0)
    throw shape_error(std::string(what) + ": axis " + std::to_string(axis) + " is out of range for shape " +
                      shape.to_string() +
                      (rank == 0 ? std::string(" (a scalar has no axes)")
                                 : " (axes " + std::to_string(-r) + " to " + std::to_string(r - 1) + ")"));
  return static_cast<std::size_t>(axis < 0 ? axis + r : axis);
}

// The same for the ops that PyTorch lets name a scalar's one axis, 0 or -1, of extent 1 (gather, as the reductions
// do: shape/reduce.hpp); extent_along() gives its extent.
inline std::size_t resolve_axis_scalar_too(std::int64_t axis, const Extents& shape, std::string_view what) {
  return resolve_axis(axis, std::max<std::size_t>(shape.rank(), 1), shape, what);
}
inline std::size_t extent_along(const Extents& shape, std::size_t axis) noexcept {
  return shape.rank() == 0 ? 1 : shape[axis];
}

// Index `index` along an axis of extent `extent`: -1 is the last element. Throws shape_error
// naming the index, the axis and its extent.
inline std::size_t resolve_index(std::int64_t index, std::size_t extent, std::size_t axis, std::string_view what) {
  const auto n = static_cast<std::int64_t>(extent);
  if (index < -n || index >= n)
    throw shape_error(std::string(what) + ": index " + std::to_string(index) + " is out of range for axis " +
                      std::to_string(axis) + " of extent " + std::to_string(extent) +
                      (extent == 0 ? std::string(" (the axis is empty)")
                                   : " (indices " + std::to_string(-n) + " to " + std::to_string(n - 1) + ")"));
  return static_cast<std::size_t>(index < 0 ? index + n : index);
}

// The extents with axis `axis` removed, or with `extent` inserted before `axis`.
inline Extents erase_axis(const Extents& e, std::size_t axis) {
  std::array<std::size_t, Extents::max_rank> out{};
  std::size_t k = 0;
  for (std::size_t r = 0; r < e.rank(); ++r)
    if (r != axis) out[k++] = e[r];
  return Extents(std::span<const std::size_t>(out.data(), k));
}
inline Extents insert_axis(const Extents& e, std::size_t axis, std::size_t extent, std::string_view what) {
  if (e.rank() == Extents::max_rank)
    throw shape_error(std::string(what) + ": shape " + e.to_string() + " already has the most axes fusegrad holds (" +
                      std::to_string(Extents::max_rank) + ")");
  std::array<std::size_t, Extents::max_rank> out{};
  std::size_t k = 0;
  for (std::size_t r = 0; r <= e.rank(); ++r) {
    if (r == axis) out[k++] = extent;
    if (r < e.rank()) out[k++] = e[r];
  }
  return Extents(std::span<const std::size_t>(out.data(), k));
}
// The same with one extent changed.
inline Extents with_extent(const Extents& e, std::size_t axis, std::size_t extent) {
  std::array<std::size_t, Extents::max_rank> out{};
  std::copy(e.begin(), e.end(), out.begin());
  out[axis] = extent;
  return Extents(std::span<const std::size_t>(out.data(), e.rank()));
}

// The extents of e split at `axis` into the elements before it (outer), its extent and the
// elements after it (inner): element (o, k, i) is at (o * extent + k) * inner + i.
struct axis_split {
  std::size_t outer = 1, extent = 1, inner = 1;
  axis_split(const Extents& e, std::size_t axis) : extent(e[axis]) {
    for (std::size_t r = 0; r < axis; ++r) outer *= e[r];
    for (std::size_t r = axis + 1; r < e.rank(); ++r) inner *= e[r];
  }
};

}  // namespace fusegrad::detail
