#!/usr/bin/python3
"""Writes torch_reference.hpp: values and gradients of the axis reductions from PyTorch (CPU, float64).

Run with Debian's python3-torch: /usr/bin/python3 tests/data/reductions/make_reference.py
Each case: an input x (2x3, row-major), a PyTorch call, an upstream gradient u for its result; the
file records the result and d(sum(u * result))/dx.
"""
import pathlib
import sys

import torch

sys.path.insert(0, str(pathlib.Path(__file__).parent.parent))
from torch_fixture import numbers, write_header  # noqa: E402

torch.set_default_dtype(torch.float64)

CASES = [
    # name, x, function, upstream (shaped like the result)
    ("max_dim1_ties", [[1, 3, 3], [2, 2, -1]], lambda x: torch.max(x, dim=1).values, [1, 2]),
    ("min_dim0_ties", [[4, 1, 0], [4, 1, 5]], lambda x: torch.min(x, dim=0).values, [1, 2, 3]),
    ("max_all_ties", [[3, 1, 3], [0, 3, 2]], lambda x: torch.max(x), 1),
    ("amax_keepdim_ties", [[3, 1, 3], [0, 3, 2]], lambda x: torch.amax(x, dim=(0, 1), keepdim=True), [[2]]),
    ("prod_dim1_zeros", [[1, 2, 3], [4, 0, 5]], lambda x: torch.prod(x, dim=1), [1, 2]),
    ("prod_dim0_two_zeros", [[0, 2, 0], [0, 3, 5]], lambda x: torch.prod(x, dim=0), [1, 2, 3]),
    ("prod_all_one_zero", [[1.5, 2, -3], [4, 0, 0.5]], lambda x: torch.prod(x), 1),
    ("logsumexp_dim1_large", [[1000, 999, -1000], [-1000, -1000, -999]],
     lambda x: torch.logsumexp(x, dim=1), [1, 2]),
    ("logsumexp_all_large", [[1000, 1000, 998], [-1000, 0, 1]], lambda x: torch.logsumexp(x, dim=(0, 1)), 1),
    ("log_softmax_dim1_large", [[1000, 999, -1000], [-1000, -1000, -999]],
     lambda x: torch.log_softmax(x, dim=1), [[1, 2, 3], [-1, 0.5, 2]]),
    ("softmax_dim0_large", [[1000, 0, -5], [-1000, 1, -5]],
     lambda x: torch.softmax(x, dim=0), [[1, 2, 3], [-1, 0.5, 2]]),
    ("var_dim1_unbiased", [[1, 2, 4], [3, -1, 0.5]], lambda x: torch.var(x, dim=1, correction=1), [1, 2]),
    ("var_dim0_population", [[1, 2, 4], [3, -1, 0.5]], lambda x: torch.var(x, dim=0, correction=0), [1, 2, 3]),
    ("std_all_unbiased", [[1, 2, 4], [3, -1, 0.5]], lambda x: torch.std(x), 1),
    ("cumsum_dim1", [[1, 2, 4], [3, -1, 0.5]], lambda x: torch.cumsum(x, dim=1), [[1, 2, 3], [-1, 0.5, 2]]),
]


def main():
    lines = []
    for name, x, f, u in CASES:
        x = torch.tensor(x, dtype=torch.float64, requires_grad=True)
        y = f(x)
        upstream = torch.tensor(u, dtype=torch.float64)
        (y * upstream).sum().backward()
        lines.append(f"// {name}")
        lines.append(f"inline constexpr double {name}_x[] = {{{numbers(x.detach())}}};")
        lines.append(f"inline constexpr double {name}_upstream[] = {{{numbers(upstream.reshape(-1))}}};")
        lines.append(f"inline constexpr double {name}_value[] = {{{numbers(y.detach().reshape(-1))}}};")
        lines.append(f"inline constexpr double {name}_grad[] = {{{numbers(x.grad)}}};")
        lines.append("")
    write_header(__file__, "fusegrad::test::torch_reference", lines)


if __name__ == "__main__":
    main()
