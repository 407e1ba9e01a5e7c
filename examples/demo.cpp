// demo.cpp -- the tour: one model, trained through the dynamic tape, where every loss is a fused node.
//
// The PyTorch dynamic-graph tutorial's linear regression, on its data (examples/data/linreg):
// fit y = b + w x by gradient descent, then take a data-dependent branch, then compare the
// fused recording with the one-node-per-operation recording. Reference figures from PyTorch
// are in examples/data/linreg/REFERENCE.md; the program checks itself against them.
#include <cmath>
#include <cstdio>

#include <fusegrad/fusegrad.hpp>
#include <fusegrad/optim.hpp>

#include "csv.hpp"

namespace fg = fusegrad;

int main() {
  const auto train = example::read_xy(FUSEGRAD_EXAMPLES_DATA_DIR "/linreg/train.csv");  // 80 points
  const fg::Tensor x = fg::Tensor::from(train.x);                                       // data: no gradient
  const fg::Tensor y = fg::Tensor::from(train.y);

  // The tutorial's starting parameters (torch.manual_seed(42); randn(1) twice).
  fg::Tensor b = fg::Tensor::scalar(0.33669036626815796).requires_grad_();  // parameters take gradients
  fg::Tensor w = fg::Tensor::scalar(0.12880940735340118).requires_grad_();

  // 1. One loss, recorded as ONE tape node: the whole expression is a static type whose
  //    gradient is fused into a single loop over the data.
  fg::Tensor loss = fg::mean(fg::square(b + w * x - y));
  loss.backward();  // value and both gradients in one pass
  std::printf("loss %.16f  dL/db %.16f  dL/dw %.16f   [%s]\n", loss.item(), b.grad().item(), w.grad().item(),
              loss.grad_fn_name().c_str());

  // 2. Train: 1000 epochs of plain gradient descent, lr = 0.1.
  fg::optim::SGD opt({b, w}, {.lr = 0.1});
  for (int epoch = 0; epoch < 1000; ++epoch) {
    opt.zero_grad();
    fg::Tensor epoch_loss = fg::mean(fg::square(b + w * x - y));  // recorded, fused
    epoch_loss.backward();                                        // frees the graph as it goes
    opt.step();                                                   // in place, not recorded
  }
  std::printf("after 1000 epochs: b = %.10f (PyTorch 1.0235409025), w = %.10f (PyTorch 1.9689641813)\n", b.item(),
              w.item());

  // 3. A data-dependent branch: the graph is whatever the program did.
  fg::Tensor b0 = fg::Tensor::scalar(0.33669036626815796).requires_grad_();
  fg::Tensor w0 = fg::Tensor::scalar(0.12880940735340118).requires_grad_();
  fg::Tensor branch = fg::mean(fg::square(b0 + w0 * x - y));
  if (branch.item() > 0) {               // decided at run time
    fg::Tensor error2 = w0 * x - y;      // a second path to w0
    branch = branch + fg::mean(error2);  // the branch joins the graph
  }
  branch.backward();
  std::printf("branch: loss %.16f  dL/db %.16f  dL/dw %.16f\n", branch.item(), b0.grad().item(), w0.grad().item());

  // 4. The same loss recorded one node per operation, as an eager framework would.
  b0.zero_grad();
  w0.zero_grad();
  fg::Tensor taped = fg::taped(fg::mean(fg::square(b0 + w0 * x - y)));
  taped.backward();
  std::printf("taped:  loss %.16f  dL/db %.16f  dL/dw %.16f   [%s]\n", taped.item(), b0.grad().item(), w0.grad().item(),
              taped.grad_fn_name().c_str());

  // The demo checks itself: a wrong number is a failed run.
  const bool ok = std::abs(b.item() - 1.0235409024567799) < 1e-9 && std::abs(w.item() - 1.9689641812930265) < 1e-9 &&
                  std::abs(branch.item() - 0.8545481670568522) < 1e-12;
  std::printf("%s\n", ok ? "matches the PyTorch reference" : "DOES NOT match the PyTorch reference");
  return ok ? 0 : 1;
}
