// nn/reduction.hpp -- how a loss reduces its values per element: the mean (PyTorch's default), the sum, or not at all.
#pragma once

#include <concepts>
#include <utility>

#include <fusegrad/ops/mean.hpp>
#include <fusegrad/ops/sum.hpp>

namespace fusegrad::nn {

/// PyTorch's `reduction=` argument of its losses, as a type, so that the loss's result type (a
/// scalar, or the values per element) follows from it: `fg::nn::mse_loss(x, y, fg::nn::reduction::sum)`.
namespace reduction {
struct mean_t {};
struct sum_t {};
struct none_t {};
inline constexpr mean_t mean{};  // the default
inline constexpr sum_t sum{};
inline constexpr none_t none{};
}  // namespace reduction

template <class R>
concept Reduction =
    std::same_as<R, reduction::mean_t> || std::same_as<R, reduction::sum_t> || std::same_as<R, reduction::none_t>;

namespace detail {
template <Reduction R, class E>
constexpr auto reduce(E&& values, R) {
  if constexpr (std::same_as<R, reduction::mean_t>)
    return fusegrad::mean(std::forward<E>(values));
  else if constexpr (std::same_as<R, reduction::sum_t>)
    return fusegrad::sum(std::forward<E>(values));
  else
    return std::forward<E>(values);
}
}  // namespace detail

}  // namespace fusegrad::nn
