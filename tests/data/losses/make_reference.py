#!/usr/bin/python3
"""Writes torch_reference.hpp: values and input gradients of PyTorch's losses (CPU, float64).

Run with Debian's python3-torch: /usr/bin/python3 tests/data/losses/make_reference.py
Each case: an input x of shape (4, 3), a target, a loss with each reduction; the file records the loss and
d(sum(u * loss))/dx for an upstream u shaped like the loss (a scalar for mean and sum).
"""
import pathlib
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, str(pathlib.Path(__file__).parent.parent))
from torch_fixture import numbers, write_header  # noqa: E402

torch.set_default_dtype(torch.float64)

X = torch.tensor([[0.5, -1.2, 2.0], [1.5, 0.3, -0.7], [-2.5, 0.0, 0.9], [0.1, 1.1, -0.4]])
Y = torch.tensor([[0.5, -0.2, 1.2], [3.0, 0.1, -0.1], [-1.0, 0.4, 0.2], [0.6, 1.1, -2.0]])  # ties x at [0][0], [3][1]
PROBABILITIES = torch.tensor([[1.0, 0.0, 0.5], [0.2, 0.9, 1.0], [0.0, 0.3, 0.7], [0.5, 1.0, 0.0]])
LOGITS = torch.tensor([[1000.0, -1000.0, 0.5], [0.2, 0.9, -0.3], [-1000.0, -999.0, -1000.0], [3.0, -2.0, 1.0]])
TARGETS = [2, 0, 1, 0]

CASES = [
    # name, x, loss of x
    ("mse", X, lambda x, r: F.mse_loss(x, Y, reduction=r)),
    ("l1", X, lambda x, r: F.l1_loss(x, Y, reduction=r)),
    ("huber", X, lambda x, r: F.huber_loss(x, Y, reduction=r)),
    ("huber_half", X, lambda x, r: F.huber_loss(x, Y, reduction=r, delta=0.5)),
    ("bce_with_logits", LOGITS, lambda x, r: F.binary_cross_entropy_with_logits(x, PROBABILITIES, reduction=r)),
    ("nll", torch.log_softmax(X, dim=1), lambda x, r: F.nll_loss(x, torch.tensor(TARGETS), reduction=r)),
    ("cross_entropy", LOGITS, lambda x, r: F.cross_entropy(x, torch.tensor(TARGETS), reduction=r)),
]

body = [
    f"inline constexpr double x[12] = {{{numbers(X)}}};",
    f"inline constexpr double y[12] = {{{numbers(Y)}}};",
    f"inline constexpr double probabilities[12] = {{{numbers(PROBABILITIES)}}};",
    f"inline constexpr double logits[12] = {{{numbers(LOGITS)}}};",
    f"inline constexpr double log_probs[12] = {{{numbers(torch.log_softmax(X, dim=1))}}};",
    f"inline constexpr long targets[4] = {{{', '.join(str(t) for t in TARGETS)}}};",
    "",
]
for name, x0, loss in CASES:
    for reduction in ("mean", "sum", "none"):
        x = x0.clone().requires_grad_()
        value = loss(x, reduction)
        u = torch.linspace(-1.0, 2.0, value.numel()).reshape(value.shape) if reduction == "none" else torch.tensor(1.5)
        (value * u).sum().backward()
        n = value.numel()
        body.append(f"inline constexpr double {name}_{reduction}_value[{n}] = {{{numbers(value.detach())}}};")
        body.append(f"inline constexpr double {name}_{reduction}_upstream[{n}] = {{{numbers(u)}}};")
        body.append(f"inline constexpr double {name}_{reduction}_grad[12] = {{{numbers(x.grad)}}};")
    body.append("")
write_header(__file__, "fusegrad::test::torch_losses", body)
