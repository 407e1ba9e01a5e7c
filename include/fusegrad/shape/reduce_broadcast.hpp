// shape/reduce_broadcast.hpp -- sums a broadcast gradient back to its operand's shape.
#pragma once

#include <Eigen/Core>

#include <fusegrad/shape/axis_runs.hpp>
#include <fusegrad/shape/extents.hpp>

namespace fusegrad {

/// The gradient of an operand that was broadcast from `target` to `grad_extents`:
/// sums `grad` over the leading axes broadcasting added and over the axes where `target`
/// has extent 1, so the result has exactly `target.size()` elements (row-major).
///   reduce_broadcast(g, (5,2,3), (2,3)) == g.sum(axis=0)
///   reduce_broadcast(g, (2,5,4), (2,1,4)) == g.sum(axis=1, keepdims=True)
/// Throws shape_error when `grad` has lower rank than `target` or the two do not broadcast
/// (MyGrad's contract). Example: tests/shape/reduce_broadcast_test.cpp.
template <class Derived>
[[nodiscard]] Eigen::Array<typename Derived::Scalar, Eigen::Dynamic, 1> reduce_broadcast(
    const Eigen::ArrayBase<Derived>& grad, const Extents& grad_extents, const Extents& target) {
  using T = typename Derived::Scalar;
  using Block = Eigen::Array<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  if (static_cast<std::size_t>(grad.size()) != grad_extents.size())
    throw shape_error("fusegrad::reduce_broadcast: the gradient holds " + std::to_string(grad.size()) +
                      " elements but its extents " + grad_extents.to_string() + " say " +
                      std::to_string(grad_extents.size()));
  const detail::axis_runs layout(target, grad_extents, "fusegrad::reduce_broadcast");

  Eigen::Array<T, Eigen::Dynamic, 1> current = grad;
  // Reduce one broadcast run at a time, right to left, so that `inner` stays contiguous.
  for (std::size_t r = layout.count; r-- > 0;) {
    if (!layout.runs[r].broadcast) continue;
    const std::size_t k = layout.runs[r].extent;
    const std::size_t outer = layout.span(0, r);
    const std::size_t inner = current.size() / (outer * k);
    Eigen::Array<T, Eigen::Dynamic, 1> next(outer * inner);
    for (std::size_t o = 0; o < outer; ++o)
      next.segment(o * inner, inner) =
          Eigen::Map<const Block>(current.data() + o * k * inner, k, inner).colwise().sum().transpose();
    current = std::move(next);
  }
  return current;
}

/// Broadcasting as data: repeats `values` (shaped `from`) to the extents `to`, row-major.
/// The forward twin of reduce_broadcast; throws shape_error when `from` does not broadcast to `to`.
template <class Derived>
[[nodiscard]] Eigen::Array<typename Derived::Scalar, Eigen::Dynamic, 1> broadcast_to(
    const Eigen::ArrayBase<Derived>& values, const Extents& from, const Extents& to) {
  using T = typename Derived::Scalar;
  using Block = Eigen::Array<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  using Row = Eigen::Array<T, 1, Eigen::Dynamic>;
  const detail::axis_runs layout(from, to, "fusegrad::broadcast_to");

  Eigen::Array<T, Eigen::Dynamic, 1> current = values;
  // Expand one broadcast run at a time, left to right.
  for (std::size_t r = 0; r < layout.count; ++r) {
    if (!layout.runs[r].broadcast) continue;
    const std::size_t k = layout.runs[r].extent;
    const std::size_t outer = layout.span(0, r);
    const std::size_t inner = current.size() / outer;
    Eigen::Array<T, Eigen::Dynamic, 1> next(outer * k * inner);
    for (std::size_t o = 0; o < outer; ++o)
      Eigen::Map<Block>(next.data() + o * k * inner, k, inner).rowwise() =
          Eigen::Map<const Row>(current.data() + o * inner, inner);
    current = std::move(next);
  }
  return current;
}

}  // namespace fusegrad
