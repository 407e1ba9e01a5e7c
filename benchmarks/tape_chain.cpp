// tape_chain.cpp -- a long chain of retained one-element operations, beside B4's short-lived ones.
//
// A scalar loop on the tape, t = t * c repeated n times, keeps every node until backward: the
// cost per operation is then the node's memory (fresh pages from the system, a fault per 4 KiB
// on first touch) more than its instructions. "retained" records the chain, runs backward and
// drops it; "short_lived" records the same operations and drops each at once, so its blocks are
// recycled (B4's situation). Counters: ops per second, and for "retained" the heap bytes each
// operation holds while the chain lives (glibc's malloc statistics, allocator headers included).
#include <cstddef>
#include <thread>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include <benchmark/benchmark.h>

#include <fusegrad/fusegrad.hpp>

namespace fg = fusegrad;

namespace {

constexpr double factor = 1.0000001;

std::size_t heap_in_use() {
#if defined(__GLIBC__)
  const struct mallinfo2 info = mallinfo2();
  return info.uordblks + info.hblkhd;
#else
  return 0;
#endif
}

// The heap bytes each retained operation holds, measured on a thread of its own: its pool
// starts empty, so no block freed by an earlier chain is reused uncounted.
double bytes_per_retained_op(int n) {
  double bytes = 0;
  std::thread([&] {
    fg::Tensor t = fg::Tensor::scalar(1.0).requires_grad_();
    const std::size_t before = heap_in_use();
    for (int k = 0; k < n; ++k) t = fg::taped(t * factor);
    bytes = double(heap_in_use() - before) / n;
  }).join();
  return bytes;
}

void retained(benchmark::State& state) {
  const auto n = static_cast<int>(state.range(0));
  fg::Tensor x = fg::Tensor::scalar(1.0).requires_grad_();
  for (auto _ : state) {
    x.zero_grad();
    fg::Tensor t = x;
    for (int k = 0; k < n; ++k) t = fg::taped(t * factor);
    t.backward();
    benchmark::DoNotOptimize(x.grad().item());
  }
  if (x.grad().item() <= 1.0) state.SkipWithError("the chain's gradient is wrong");
  state.counters["ops"] = benchmark::Counter(double(n), benchmark::Counter::kIsIterationInvariantRate);
  state.counters["bytes_per_op"] = bytes_per_retained_op(n);
}

void short_lived(benchmark::State& state) {
  const auto n = static_cast<int>(state.range(0));
  fg::Tensor x = fg::Tensor::scalar(1.0).requires_grad_();
  for (auto _ : state) {
    x.zero_grad();
    for (int k = 0; k < n; ++k) {
      const fg::Tensor t = fg::taped(x * factor);
      benchmark::DoNotOptimize(t.impl());
    }
  }
  state.counters["ops"] = benchmark::Counter(double(n), benchmark::Counter::kIsIterationInvariantRate);
}

}  // namespace

BENCHMARK(retained)->Name("chain/retained")->Arg(1'000)->Arg(100'000)->Arg(1'000'000)->Unit(benchmark::kMillisecond);
BENCHMARK(short_lived)->Name("chain/short_lived")->Arg(1'000)->Arg(100'000)->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
