// dynamic_graph.cpp -- the dynamic layer: an `if` decides the graph, fused and taped nodes side by side.
#include <cstdio>

#include <fusegrad/fusegrad.hpp>

namespace fg = fusegrad;

int main() {
  // Data: a ConstTensor's type says it takes no gradient, so fused nodes compile no VJP for it.
  const fg::ConstTensor x(fg::Tensor::from({0.1, 0.4, 0.7, 1.0}, {4}));
  const fg::ConstTensor y(fg::Tensor::from({1.2, 1.8, 2.4, 3.1}, {4}));
  fg::Tensor w = fg::Tensor::scalar(0.5).requires_grad_();  // parameters
  fg::Tensor b = fg::Tensor::scalar(0.0).requires_grad_();

  fg::Tensor loss = fg::mean(fg::square(b + w * x - y));  // one fused node: "FusedBackward"
  std::printf("loss = %.6f recorded as %s\n", loss.item(), loss.grad_fn_name().c_str());

  if (loss.item() > 1.0) {             // data-dependent control flow
    fg::Tensor penalty = 0.1 * w * w;  // another fused node
    loss = loss + penalty;             // the graph grows only on this path
  }
  std::printf("after the branch: %s\n", loss.grad_fn_name().c_str());

  loss.backward();  // reverse topological order, each node once
  std::printf("dL/dw = %.6f  dL/db = %.6f\n", w.grad().item(), b.grad().item());

  // The same loss recorded one node per operation: MeanBackward <- PowBackward <- SubBackward ...
  fg::Tensor taped = fg::taped(fg::mean(fg::square(b + w * x - y)));
  std::printf("taped root: %s\n", taped.grad_fn_name().c_str());

  // A second backward through a freed graph is an error that says what to do.
  try {
    loss.backward();
  } catch (const fg::graph_error& e) {
    std::printf("as expected: %s\n", e.what());
  }

  // Nothing is recorded under NoGradGuard: how parameters are updated.
  {
    fg::NoGradGuard no_grad;
    w.sub_(w.grad(), 0.1);
    b.sub_(b.grad(), 0.1);
  }
  std::printf("w = %.6f  b = %.6f\n", w.item(), b.item());

  // A parameter that is one value can say so in its type. A fused node then knows at
  // compile time that sigma is one value over the data, and computes log(sigma) and
  // 1/sigma once per backward instead of once per element.
  fg::ScalarTensor mu(2.0), sigma(1.0);
  mu.requires_grad_();
  sigma.requires_grad_();
  fg::Tensor nll = fg::sum(0.5 * fg::square((y - mu) / sigma) + fg::log(sigma));
  nll.backward();
  // z = y - mu: dNLL/dmu = -sum(z) / sigma^2 = -0.5, dNLL/dsigma = n / sigma - sum(z^2) / sigma^3 = 1.95
  std::printf("dNLL/dmu = %.6f  dNLL/dsigma = %.6f\n", mu.grad().item(), sigma.grad().item());
  return 0;
}
