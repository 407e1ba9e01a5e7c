// nn/losses.hpp -- PyTorch's losses as expressions: mse, l1, huber, binary cross-entropy from logits, negative
// log-likelihood and cross-entropy from logits with class-index targets. Each works in both layers (Vars and Tensors)
// and records as fused nodes where it is static math.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <fusegrad/concepts.hpp>
#include <fusegrad/detail/number_text.hpp>
#include <fusegrad/error.hpp>
#include <fusegrad/nn/reduction.hpp>
#include <fusegrad/ops/abs.hpp>
#include <fusegrad/ops/add.hpp>
#include <fusegrad/ops/compare.hpp>
#include <fusegrad/ops/gather.hpp>
#include <fusegrad/ops/indices.hpp>
#include <fusegrad/ops/log_softmax.hpp>
#include <fusegrad/ops/minimum.hpp>
#include <fusegrad/ops/mul.hpp>
#include <fusegrad/ops/negate.hpp>
#include <fusegrad/ops/reshape.hpp>
#include <fusegrad/ops/softplus.hpp>
#include <fusegrad/ops/square.hpp>
#include <fusegrad/ops/sub.hpp>
#include <fusegrad/ops/where.hpp>
#include <fusegrad/shape/broadcast.hpp>
#include <fusegrad/shape/extents.hpp>

namespace fusegrad::detail {
// x used N times in one expression, f(x, ..., x): an lvalue as it is (a Var by reference, an expression by value); a
// temporary copied N - 1 times and moved once, so that no node refers to a dead object.
template <std::size_t N, class X, class F>
constexpr auto with_operand_uses(X&& x, F&& f) {
  return [&]<std::size_t... I>(std::index_sequence<I...>) {
    if constexpr (std::is_lvalue_reference_v<X>)
      return f(((void)I, x)..., x);
    else
      return f(std::remove_cvref_t<X>(((void)I, x))..., std::move(x));
  }
  (std::make_index_sequence<N - 1>{});
}
}  // namespace fusegrad::detail

namespace fusegrad::nn {

namespace detail {
// The target must not enlarge the input: PyTorch warns when broadcasting (N, 1) against (N) makes
// an (N, N) loss; here it is a shape_error. Binary cross-entropy takes one target per logit (same_shape), as
// PyTorch's, which refuses any other shape.
template <class X, class Y>
void check_target(const X& x, const Y& y, const char* loss, bool same_shape = false) {
  if constexpr (requires { y.extents(); }) {
    const Extents input = x.extents(), target = y.extents();
    if (same_shape && !(target == input))
      throw shape_error(std::string("fusegrad::nn::") + loss + ": the target's shape " + target.to_string() +
                        " differs from the input's " + input.to_string() +
                        "; give one target per logit, in the input's shape");
    if (!broadcasts_to(target, input)) {
      const bool together = broadcastable(input, target);
      throw shape_error(std::string("fusegrad::nn::") + loss + ": the target's shape " + target.to_string() +
                        (together ? " would broadcast the input's " + input.to_string() + " to " +
                                        broadcast(input, target).to_string()
                                  : " does not broadcast with the input's " + input.to_string()) +
                        "; give the target the input's shape");
    }
  }
}
}  // namespace detail

/// Mean squared error: reduce((x - y)^2) (PyTorch's mse_loss). y may broadcast to x's shape, not
/// beyond it (shape_error).
template <Differentiable X, class Y, Reduction R = reduction::mean_t>
[[nodiscard]] auto mse_loss(X&& x, Y&& y, R r = {}) {
  detail::check_target(x, y, "mse_loss");
  return detail::reduce(square(std::forward<X>(x) - std::forward<Y>(y)), r);
}

/// Mean absolute error: reduce(|x - y|) (PyTorch's l1_loss; its gradient at x = y is 0).
template <Differentiable X, class Y, Reduction R = reduction::mean_t>
[[nodiscard]] auto l1_loss(X&& x, Y&& y, R r = {}) {
  detail::check_target(x, y, "l1_loss");
  return detail::reduce(abs(std::forward<X>(x) - std::forward<Y>(y)), r);
}

/// Huber loss: with d = x - y, 0.5 d^2 where |d| < delta, delta (|d| - 0.5 delta) elsewhere
/// (PyTorch's huber_loss, its argument order: reduction, then delta > 0; delta may be infinite).
/// Computed as c (|d| - 0.5 c) with c = min(|d|, delta): the same values and gradients, rounded alike, and no branch
/// whose slope is delta, which would give 0 * inf = NaN in the gradient when delta is infinite (or, for float, above
/// the largest float).
template <Differentiable X, class Y, Reduction R = reduction::mean_t>
[[nodiscard]] auto huber_loss(X&& x, Y&& y, R r = {}, double delta = 1.0) {
  if (!(delta > 0))
    throw value_error("fusegrad::nn::huber_loss: delta must be > 0, not " + fusegrad::detail::number_text(delta));
  detail::check_target(x, y, "huber_loss");
  const auto a = abs(std::forward<X>(x) - std::forward<Y>(y));  // a sub-expression: each use below holds a copy
  const auto c = minimum(a, delta);
  return detail::reduce(c * (a - 0.5 * c), r);
}

/// Binary cross-entropy of logits x against targets y in [0, 1] (PyTorch's binary_cross_entropy_with_logits, without
/// weight or pos_weight): -(y log sigmoid(x) + (1 - y) log(1 - sigmoid(x))) = softplus(x) - x y, computed for each
/// sign of x so that nothing cancels: softplus(-x) + x (1 - y) where x >= 0, softplus(x) - x y below. Neither overflows
/// at logits of +-1000, and a confident right logit (x = 36 for y = 1) gives softplus(-36) = 2.3e-16 to the last digit,
/// where softplus(x) - x y gives 0. The gradients are sigmoid(x) - y and, for the target, -x exactly.
template <Differentiable X, class Y, Reduction R = reduction::mean_t>
[[nodiscard]] auto bce_with_logits_loss(X&& x, Y&& y, R r = {}) {
  detail::check_target(x, y, "bce_with_logits_loss", /*same_shape=*/true);
  return fusegrad::detail::with_operand_uses<5>(
      std::forward<X>(x), [&](auto&& x1, auto&& x2, auto&& x3, auto&& x4, auto&& x5) {
        return fusegrad::detail::with_operand_uses<2>(std::forward<Y>(y), [&](auto&& y1, auto&& y2) {
          auto at_or_above_zero = softplus(-std::forward<decltype(x2)>(x2)) +
                                  std::forward<decltype(x3)>(x3) * (1.0 - std::forward<decltype(y1)>(y1));
          auto below_zero = softplus(std::forward<decltype(x4)>(x4)) -
                            std::forward<decltype(x5)>(x5) * std::forward<decltype(y2)>(y2);
          return detail::reduce(
              where(std::forward<decltype(x1)>(x1) >= 0.0, std::move(at_or_above_zero), std::move(below_zero)), r);
        });
      });
}

namespace detail {
// The (N, 1) indices that pick each row's target class, after checking them against the (N, C)
// scores: a wrong shape or a class outside [0, C) is a value_error naming the loss and the row.
inline Indices target_columns(const Extents& scores, const Indices& targets, const char* loss) {
  const std::string who = std::string("fusegrad::nn::") + loss + ": ";
  if (scores.rank() != 2)
    throw shape_error(who + "the input is a batch of rows of class scores, shape (N, C); it has shape " +
                      scores.to_string());
  if (targets.extents().rank() != 1 || targets.size() != scores[0])
    throw shape_error(who + "one target class per row: " + std::to_string(scores[0]) + " rows, targets of shape " +
                      targets.extents().to_string());
  const auto classes = static_cast<std::int64_t>(scores[1]);
  for (std::size_t i = 0; i < targets.size(); ++i)
    if (targets[i] < 0 || targets[i] >= classes)
      throw value_error(who + "the target of row " + std::to_string(i) + " is class " + std::to_string(targets[i]) +
                        ", outside [0, " + std::to_string(classes) + ")");
  return Indices(std::vector<std::int64_t>(targets.values().begin(), targets.values().end()),
                 Extents{targets.size(), 1});
}

template <class E, Reduction R>
auto reduce_picked(E&& picked, R r) {
  if constexpr (std::same_as<R, reduction::none_t>)
    return -flatten(std::forward<E>(picked));  // one loss per row, shape (N)
  else
    return reduce(-std::forward<E>(picked), r);  // negated before the sum: no rows sum to +0, as in PyTorch
}
}  // namespace detail

/// Negative log-likelihood: with log_probs of shape (N, C) and one class index per row,
/// reduce(-log_probs[i, targets[i]]) (PyTorch's nll_loss, without weight or ignore_index).
template <Differentiable X, Reduction R = reduction::mean_t>
[[nodiscard]] auto nll_loss(X&& log_probs, const Indices& targets, R r = {}) {
  Indices columns = detail::target_columns(log_probs.extents(), targets, "nll_loss");
  return detail::reduce_picked(gather(std::forward<X>(log_probs), 1, std::move(columns)), r);
}

/// Cross-entropy of logits of shape (N, C) against one class index per row: nll_loss of
/// log_softmax over the classes, stable at logits of +-1000 (PyTorch's cross_entropy with
/// class-index targets, without weight, ignore_index or label smoothing).
template <Differentiable X, Reduction R = reduction::mean_t>
[[nodiscard]] auto cross_entropy_loss(X&& logits, const Indices& targets, R r = {}) {
  Indices columns = detail::target_columns(logits.extents(), targets, "cross_entropy_loss");
  return detail::reduce_picked(gather(log_softmax(std::forward<X>(logits), axes<1>), 1, std::move(columns)), r);
}

}  // namespace fusegrad::nn
