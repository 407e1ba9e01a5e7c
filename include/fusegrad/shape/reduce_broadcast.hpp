// shape/reduce_broadcast.hpp -- sums a broadcast gradient back to its operand's shape, and its forward twin.
#pragma once

#include <array>
#include <string>

#include <Eigen/Core>

#include <fusegrad/detail/buffer.hpp>
#include <fusegrad/detail/carried_sum.hpp>
#include <fusegrad/shape/axis_runs.hpp>
#include <fusegrad/shape/extents.hpp>

namespace fusegrad {

namespace detail {

// Walks row-major data of `big` in contiguous chunks of the innermost run, calling
// chunk(big_offset, small_offset, length, innermost_is_broadcast). Outer runs advance an
// odometer; broadcast runs do not move the small offset. No allocation.
template <class Chunk>
void for_each_broadcast_chunk(const axis_runs& layout, Chunk&& chunk) {
  if (layout.count == 0) {  // every extent is 1: one element
    chunk(std::size_t{0}, std::size_t{0}, std::size_t{1}, false);
    return;
  }
  std::array<std::size_t, Extents::max_rank> small_stride{}, index{};
  std::size_t stride = 1;
  for (std::size_t r = layout.count; r-- > 0;) {
    small_stride[r] = layout.runs[r].broadcast ? 0 : stride;
    if (!layout.runs[r].broadcast) stride *= layout.runs[r].extent;
  }
  const std::size_t inner = layout.runs[layout.count - 1].extent;
  const bool inner_broadcast = layout.runs[layout.count - 1].broadcast;
  const std::size_t total = layout.span(0, layout.count);
  std::size_t small = 0;
  for (std::size_t big = 0; big < total; big += inner) {
    chunk(big, small, inner, inner_broadcast);
    for (std::size_t r = layout.count - 1; r-- > 0;) {
      small += small_stride[r];
      if (++index[r] < layout.runs[r].extent) break;
      small -= small_stride[r] * index[r];
      index[r] = 0;
    }
  }
}

}  // namespace detail

/// Adds to `target_grad` (shaped `target`) the gradient `grad` (shaped `grad_extents`)
/// summed over the axes that broadcasting added or expanded; the fused sweep uses it directly.
/// Sums of float are taken in double (detail/carried_sum.hpp), in scratch of the target's size: a
/// float total over a million values would lose its last digits. Otherwise allocation-free. Throws
/// shape_error as reduce_broadcast does.
template <class T>
void reduce_broadcast_into(T* target_grad, const T* grad, const Extents& grad_extents, const Extents& target) {
  using Vec = Eigen::Array<T, Eigen::Dynamic, 1>;
  const detail::axis_runs layout(target, grad_extents, "fusegrad::reduce_broadcast");
  // Adds every chunk into `sums`, laid out as the target, in C (cast<T> of T's values is the values themselves).
  const auto add_chunks = [&]<class C>(C* sums) {
    detail::for_each_broadcast_chunk(layout, [&](std::size_t big, std::size_t small, std::size_t n, bool broadcast) {
      const Eigen::Map<const Vec> chunk(grad + big, static_cast<Eigen::Index>(n));
      if (broadcast)
        sums[small] += chunk.template cast<C>().sum();
      else
        Eigen::Map<Eigen::Array<C, Eigen::Dynamic, 1>>(sums + small, static_cast<Eigen::Index>(n)) +=
            chunk.template cast<C>();
    });
  };
  if constexpr (detail::carries_sums_v<T>) {
    if (target.size() != grad_extents.size()) {
      using C = detail::carried_sum_t<T>;
      detail::small_buffer<C> sums(target.size(), C(0));
      add_chunks(sums.data());
      for (std::size_t i = 0; i < target.size(); ++i) target_grad[i] += T(sums[i]);
      return;
    }
  }
  add_chunks(target_grad);
}

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
  if (static_cast<std::size_t>(grad.size()) != grad_extents.size())
    throw shape_error("fusegrad::reduce_broadcast: the gradient holds " + std::to_string(grad.size()) +
                      " elements but its extents " + grad_extents.to_string() + " say " +
                      std::to_string(grad_extents.size()));
  const Eigen::Array<T, Eigen::Dynamic, 1> g = grad;  // contiguous, whatever `grad` is
  Eigen::Array<T, Eigen::Dynamic, 1> out =
      Eigen::Array<T, Eigen::Dynamic, 1>::Zero(static_cast<Eigen::Index>(target.size()));
  reduce_broadcast_into(out.data(), g.data(), grad_extents, target);
  return out;
}

/// Writes into `out` (shaped `to`) the values (shaped `from`) repeated along broadcast axes.
/// Allocation-free; throws shape_error when `from` does not broadcast to `to`.
template <class T>
void broadcast_into(T* out, const T* values, const Extents& from, const Extents& to) {
  using Vec = Eigen::Array<T, Eigen::Dynamic, 1>;
  const detail::axis_runs layout(from, to, "fusegrad::broadcast_to");
  detail::for_each_broadcast_chunk(layout, [&](std::size_t big, std::size_t small, std::size_t n, bool broadcast) {
    Eigen::Map<Vec> chunk(out + big, static_cast<Eigen::Index>(n));
    if (broadcast)
      chunk.setConstant(values[small]);
    else
      chunk = Eigen::Map<const Vec>(values + small, static_cast<Eigen::Index>(n));
  });
}

/// Broadcasting as data: repeats `values` (shaped `from`) to the extents `to`, row-major.
/// The forward twin of reduce_broadcast; throws shape_error when `from` does not broadcast to `to`.
template <class Derived>
[[nodiscard]] Eigen::Array<typename Derived::Scalar, Eigen::Dynamic, 1> broadcast_to(
    const Eigen::ArrayBase<Derived>& values, const Extents& from, const Extents& to) {
  using T = typename Derived::Scalar;
  if (static_cast<std::size_t>(values.size()) != from.size())
    throw shape_error("fusegrad::broadcast_to: the values hold " + std::to_string(values.size()) +
                      " elements but their extents " + from.to_string() + " say " + std::to_string(from.size()));
  const Eigen::Array<T, Eigen::Dynamic, 1> v = values;
  Eigen::Array<T, Eigen::Dynamic, 1> out(static_cast<Eigen::Index>(to.size()));
  broadcast_into(out.data(), v.data(), from, to);
  return out;
}

}  // namespace fusegrad
