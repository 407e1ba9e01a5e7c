#!/usr/bin/python3
"""Writes torch_reference.hpp: five steps of each optimiser configuration from PyTorch (CPU, float64, and float32 for
the cases named *_float32).

Run with Debian's python3-torch: /usr/bin/python3 tests/data/optim/make_reference.py
Every case starts from the same two parameters, p (2x3) and q (3), minimises
    loss = sum(k * (p - 0.5)^2) + sum(sin(q) * q),  k = [[1, 2, 3], [0.5, 1.5, 2.5]],
and records p and q after each of five steps (and, with a schedule, the learning rate after each).
"""
import pathlib
import sys

import torch

sys.path.insert(0, str(pathlib.Path(__file__).parent.parent))
from torch_fixture import numbers, write_header  # noqa: E402

torch.set_default_dtype(torch.float64)

P0 = [[0.1, -0.4, 0.9], [1.2, -1.5, 0.3]]
Q0 = [0.7, -0.2, 1.4]
K = torch.tensor([[1, 2, 3], [0.5, 1.5, 2.5]])
STEPS = 5

CASES = [
    # name, optimiser factory, schedule factory (or None)
    ("sgd", lambda ps: torch.optim.SGD(ps, lr=0.1), None),
    ("sgd_momentum", lambda ps: torch.optim.SGD(ps, lr=0.1, momentum=0.9), None),
    ("sgd_dampening_weight_decay",
     lambda ps: torch.optim.SGD(ps, lr=0.05, momentum=0.8, dampening=0.3, weight_decay=0.01), None),
    ("sgd_nesterov", lambda ps: torch.optim.SGD(ps, lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.001), None),
    ("sgd_maximize", lambda ps: torch.optim.SGD(ps, lr=0.05, momentum=0.5, maximize=True), None),
    ("sgd_maximize_weight_decay", lambda ps: torch.optim.SGD(ps, lr=0.05, weight_decay=0.3, maximize=True), None),
    ("adam", lambda ps: torch.optim.Adam(ps, lr=0.1), None),
    ("adam_weight_decay_amsgrad",
     lambda ps: torch.optim.Adam(ps, lr=0.05, betas=(0.8, 0.99), eps=1e-6, weight_decay=0.1, amsgrad=True), None),
    ("adam_maximize_weight_decay", lambda ps: torch.optim.Adam(ps, lr=0.05, weight_decay=0.3, maximize=True), None),
    ("adamw", lambda ps: torch.optim.AdamW(ps, lr=0.1, weight_decay=0.05), None),
    ("adamw_amsgrad_maximize",
     lambda ps: torch.optim.AdamW(ps, lr=0.02, betas=(0.7, 0.9), weight_decay=0.2, amsgrad=True, maximize=True), None),
    ("sgd_step_lr", lambda ps: torch.optim.SGD(ps, lr=0.1, momentum=0.5),
     lambda opt: torch.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)),
    ("adam_cosine_lr", lambda ps: torch.optim.Adam(ps, lr=0.1),
     lambda opt: torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=4, eta_min=0.01)),
    # float32 parameters: PyTorch rounds 1 - beta, computed in double, to float (1 - 0.999 is 0.001 in float, where
    # 1 - 0.999f is 0.0009999871).
    ("adam_float32", lambda ps: torch.optim.Adam(ps, lr=0.1), None),
    ("adamw_amsgrad_float32",
     lambda ps: torch.optim.AdamW(ps, lr=0.02, betas=(0.7, 0.999), weight_decay=0.2, amsgrad=True), None),
]


def run(make_optimiser, make_schedule, dtype):
    p = torch.tensor(P0, dtype=dtype, requires_grad=True)
    q = torch.tensor(Q0, dtype=dtype, requires_grad=True)
    k = K.to(dtype)
    opt = make_optimiser([p, q])
    schedule = make_schedule(opt) if make_schedule else None
    ps, qs, lrs = [], [], []
    for _ in range(STEPS):
        opt.zero_grad()
        loss = (k * (p - 0.5) ** 2).sum() + (torch.sin(q) * q).sum()
        loss.backward()
        opt.step()
        if schedule:
            schedule.step()
            lrs.append(opt.param_groups[0]["lr"])
        ps.append(p.detach().clone())
        qs.append(q.detach().clone())
    return torch.stack(ps), torch.stack(qs), lrs


def rows(t):
    """A matrix's rows, each in its own braces."""
    return ", ".join("{" + numbers(row) + "}" for row in t)


body = [
    f"inline constexpr double p0[6] = {{{numbers(torch.tensor(P0))}}};",
    f"inline constexpr double q0[3] = {{{numbers(torch.tensor(Q0))}}};",
    f"inline constexpr double k[6] = {{{numbers(K)}}};",
    "",
]
for name, make_optimiser, make_schedule in CASES:
    ps, qs, lrs = run(make_optimiser, make_schedule, torch.float32 if name.endswith("_float32") else torch.float64)
    body.append(f"inline constexpr double {name}_p[{STEPS}][6] = {{{rows(ps)}}};")
    body.append(f"inline constexpr double {name}_q[{STEPS}][3] = {{{rows(qs)}}};")
    if lrs:
        body.append(f"inline constexpr double {name}_lr[{STEPS}] = {{{', '.join(repr(v) for v in lrs)}}};")
    body.append("")
write_header(__file__, "fusegrad::test::torch_optim", body)
