// fuzz/broadcast_fuzz.cpp -- run-time shapes and broadcasting: two tensors of any extents (zeros and mismatches
// included) through every binary op, reductions over chosen axes and backward. A shape error must be a
// fusegrad::shape_error that leaves both tensors as they were; a result must have the broadcast shape.
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include <fusegrad/fusegrad.hpp>

#include "fuzz/fuzz_input.hpp"

namespace fg = fusegrad;

namespace {

void check(bool ok) {
  if (!ok) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fg::fuzz::fuzz_input in(data, size);
  return fg::fuzz::run_guarded([&] {
    const fg::Extents sa = in.extents(), sb = in.extents();
    fg::Tensor a = fg::Tensor::full(sa, in.value()).requires_grad_();
    fg::Tensor b = fg::Tensor::full(sb, in.value());
    if (in.flag()) b.requires_grad_();
    fg::Tensor y;
    try {
      switch (in.below(7)) {
        case 0:
          y = a + b;
          break;
        case 1:
          y = a - b;
          break;
        case 2:
          y = a * b;
          break;
        case 3:
          y = a / b;
          break;
        case 4:
          y = fg::pow(a, b);
          break;
        case 5:
          y = fg::maximum(a, b);
          break;
        default:
          y = fg::minimum(a, b);
          break;
      }
    } catch (const fg::shape_error&) {
      // refused: nothing recorded, both operands unchanged
      check(a.shape() == sa && b.shape() == sb && !a.grad().defined() && a.is_leaf());
      return;
    }
    check(y.shape() == fg::broadcast(sa, sb));
    fg::Tensor loss;
    switch (in.below(3)) {
      case 0:
        loss = fg::sum(y);
        break;
      case 1:
        loss = fg::mean(y);
        break;
      default:
        loss = fg::sum(fg::sum(y, fg::axes<0>));
        break;  // throws for a scalar y
    }
    loss.backward();
    check(a.grad().shape() == sa);
    if (b.requires_grad()) check(b.grad().shape() == sb);
  });
}
