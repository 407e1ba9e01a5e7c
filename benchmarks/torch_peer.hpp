// torch_peer.hpp -- LibTorch as the benchmarks' peer (compiled when CMake finds Torch: FUSEGRAD_HAVE_TORCH).
// The variants `libtorch` compute the same function and gradients as the others: float64, data wrapped without
// copies, parameters as leaf tensors whose gradients are reset to none on every call, one thread.
#pragma once

#include <cstdint>
#include <span>
#include <thread>
#include <vector>

#include <torch/torch.h>
#include <Eigen/Core>

namespace fusegrad::bench {

/// An Eigen array's (or a row-major matrix's) values as a float64 tensor of `sizes`, sharing its memory.
template <class Dense>
torch::Tensor torch_view(Dense& values, std::vector<std::int64_t> sizes) {
  return torch::from_blob(values.data(), sizes, torch::TensorOptions().dtype(torch::kFloat64));
}

/// A leaf parameter: a float64 tensor that owns a copy of `values` and requires its gradient.
template <class Dense>
torch::Tensor torch_parameter(const Dense& values, std::vector<std::int64_t> sizes) {
  auto copy = values.eval();
  return torch_view(copy, std::move(sizes)).clone().requires_grad_(true);
}

/// A tensor's values, for check_gradient (contiguous float64).
inline std::span<const double> values_of(const torch::Tensor& t) {
  return {t.data_ptr<double>(), static_cast<std::size_t>(t.numel())};
}

/// What PyTorch's `optimizer.zero_grad()` does by default: each parameter's gradient becomes undefined, so
/// backward allocates it afresh rather than adding into it.
template <class... Tensors>
void set_grads_to_none(Tensors&... parameters) {
  ((parameters.mutable_grad() = torch::Tensor()), ...);
}

/// LibTorch on one thread, as every other variant runs: each libtorch variant calls it first.
inline void torch_single_thread() { torch::set_num_threads(1); }

// LibTorch starts threads (setting its thread count does), and a program's second thread makes fusegrad's reference
// counts and graph lock atomic from then on (include/fusegrad/tape/single_threaded.hpp). A thread started and joined
// before main puts every variant of a program with LibTorch in that mode, whatever order the repetitions take: as in
// any program with threads.
static const bool second_thread_started_before_main = (std::thread([] {}).join(), torch_single_thread(), true);

}  // namespace fusegrad::bench
