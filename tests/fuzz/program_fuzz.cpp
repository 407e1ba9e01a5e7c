// fuzz/program_fuzz.cpp -- byte-coded programs of tensor operations and backward calls: leaves, element-wise ops,
// reductions, matrix products, casts to float and back, fused and taped expressions, backward with and without
// retain_graph, detach, in-place updates, NoGradGuard, zero_grad, retain_grad, dropped handles. Each step either
// succeeds or throws a fusegrad:: exception that leaves every tensor's values and gradient as they were; nothing
// else may happen.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <vector>

#include <Eigen/Core>

#include <fusegrad/fusegrad.hpp>

#include "fuzz/fuzz_input.hpp"

namespace fg = fusegrad;

namespace {

using fg::Tensor;

// What a failed step must leave alone: every register's values and gradient, bit for bit. A
// value still deferred (a sum whose backward has not run) is recorded as pending, not read:
// reading it would compute it, and the paths that settle deferred values would go unfuzzed.
struct Reading {
  enum { undefined, pending, unreadable, read } state = undefined;
  Eigen::ArrayXd values;
};
struct Snapshot {
  std::vector<Reading> values, grads;
};

Reading read(const Tensor& t) {
  if (!t.defined()) return {};
  if (t.impl()->value_pending.load()) return {Reading::pending, {}};
  try {
    return {Reading::read, Eigen::ArrayXd(t.eigen())};
  } catch (const fg::error&) {
    return {Reading::unreadable, {}};
  }
}

Snapshot take(const std::vector<Tensor>& regs) {
  Snapshot s;
  for (const Tensor& t : regs) {
    s.values.push_back(read(t));
    s.grads.push_back(read(t.grad()));
  }
  return s;
}

// `after` holds what `before` held. A pending value may have been settled meanwhile (computed,
// as it would have been when read), which changes nothing.
bool same_bits(const Reading& before, const Reading& after) {
  if (before.state == Reading::pending) return true;
  const Reading& a = before;
  const Reading& b = after;
  return a.state == b.state && a.values.size() == b.values.size() &&
         (a.values.size() == 0 ||  // an empty array's data() may be null, which memcmp may not see
          std::memcmp(a.values.data(), b.values.data(), sizeof(double) * std::size_t(a.values.size())) == 0);
}

void check_unchanged(const Snapshot& before, const std::vector<Tensor>& regs) {
  const Snapshot after = take(regs);
  for (std::size_t k = 0; k < regs.size(); ++k)
    if (!same_bits(before.values[k], after.values[k]) || !same_bits(before.grads[k], after.grads[k])) std::abort();
}

class Machine {
 public:
  explicit Machine(fg::fuzz::fuzz_input& in) : in_(in) {}

  void run() {
    for (int steps = 0; steps < 64 && !in_.done(); ++steps) {
      const std::uint8_t op = in_.byte();
      if (regs_.empty()) push(Tensor::scalar(1.0).requires_grad_());  // every step has a tensor to pick
      const Snapshot before = take(regs_);
      try {
        step(op);
      } catch (const fg::error&) {
        check_unchanged(before, regs_);
      }
      if (regs_.size() > 8) regs_.erase(regs_.begin());
    }
  }

 private:
  Tensor& pick() { return regs_[in_.below(regs_.size())]; }
  void push(Tensor t) { regs_.push_back(std::move(t)); }

  void step(std::uint8_t op) {
    switch (op % 16) {
      case 0: {  // a leaf
        Tensor t = Tensor::full(in_.extents(3, 3), in_.value());
        if (in_.flag()) t.requires_grad_();
        push(t);
        break;
      }
      case 1:
        unary(pick());
        break;
      case 2: {  // named first: the order in which a call's arguments are evaluated is unspecified
        const Tensor& a = pick();
        const Tensor& b = pick();
        binary(a, b);
        break;
      }
      case 3:
        reduction(pick());
        break;
      case 4: {  // a fused node whose value may wait for a backward (a sum)
        const Tensor x = pick(), y = pick();
        push(fg::sum(fg::sin(x) * y + fg::exp(-x)));
        break;
      }
      case 5: {  // the same, one node per op
        const Tensor x = pick(), y = pick();
        push(fg::taped(fg::tanh(x) * y - fg::square(x)));
        break;
      }
      case 6: {
        const Tensor& t = pick();
        const fg::BackwardOptions options{.retain_graph = in_.flag()};
        if (in_.flag())
          t.backward(options);  // a scalar's; others refuse
        else
          t.backward(Tensor::ones_like(t), options);
        break;
      }
      case 7:
        push(pick().detach());
        break;
      case 8: {  // in place: refused on leaves that require grad, caught later by the nodes that read it
        Tensor& t = pick();
        switch (in_.below(3)) {
          case 0:
            t.add_(pick());
            break;
          case 1:
            t.mul_(in_.value());
            break;
          default:
            t.fill_(in_.value());
            break;
        }
        break;
      }
      case 9:
        if (guard_)
          guard_.reset();
        else
          guard_.emplace();
        break;
      case 10:
        pick().zero_grad();
        break;
      case 11:
        pick().retain_grad();
        break;
      case 12: {
        const Tensor g = pick().grad();
        if (g.defined()) push(g);
        break;
      }
      case 13:
        regs_.erase(regs_.begin() + std::ptrdiff_t(in_.below(regs_.size())));
        break;
      case 14: {
        const Tensor& a = pick();
        const Tensor& b = pick();
        push(fg::matmul(a, b));
        break;
      }
      default:
        push(fg::transpose(pick()));
        break;
    }
  }

  void unary(const Tensor& x) {
    switch (in_.below(13)) {
      case 0:
        push(fg::sin(x));
        break;
      case 1:
        push(fg::exp(x));
        break;
      case 2:
        push(fg::log(x));
        break;
      case 3:
        push(fg::sqrt(x));
        break;
      case 4:
        push(fg::tanh(x));
        break;
      case 5:
        push(fg::sigmoid(x));
        break;
      case 6:
        push(fg::relu(x));
        break;
      case 7:
        push(fg::abs(x));
        break;
      case 8:
        push(-x);
        break;
      case 9:
        push(fg::reciprocal(x));
        break;
      case 10:
        push(fg::softplus(x));
        break;
      case 11:
        push(fg::log_sigmoid(x));
        break;
      default:  // out to float and back: the graph continues across two casts
        push(x.to<float>().to<double>());
        break;
    }
  }
  void binary(const Tensor& a, const Tensor& b) {
    switch (in_.below(7)) {
      case 0:
        push(a + b);
        break;
      case 1:
        push(a - b);
        break;
      case 2:
        push(a * b);
        break;
      case 3:
        push(a / b);
        break;
      case 4:
        push(fg::pow(a, b));
        break;
      case 5:
        push(fg::maximum(a, b));
        break;
      default:
        push(fg::minimum(a, b));
        break;
    }
  }
  void reduction(const Tensor& x) {
    switch (in_.below(8)) {
      case 0:
        push(fg::sum(x));
        break;
      case 1:
        push(fg::mean(x, fg::axes<0>));
        break;
      case 2:
        push(fg::max(x));
        break;
      case 3:
        push(fg::logsumexp(x, fg::axes<0>, fg::keepdims));
        break;
      case 4:
        push(fg::prod(x));
        break;
      case 5:
        push(fg::variance(x));
        break;
      case 6:
        push(fg::softmax(x, fg::all_axes));
        break;
      default:
        push(fg::cumsum(x, fg::axes<0>));
        break;
    }
  }

  fg::fuzz::fuzz_input& in_;
  std::vector<Tensor> regs_;
  std::optional<fg::NoGradGuard> guard_;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fg::fuzz::fuzz_input in(data, size);
  return fg::fuzz::run_guarded([&] { Machine(in).run(); });
}
