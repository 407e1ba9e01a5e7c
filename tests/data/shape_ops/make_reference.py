#!/usr/bin/python3
"""Writes torch_reference.hpp: values and gradients of the shape, indexing and selection ops from PyTorch (float64).

Run with Debian's python3-torch: /usr/bin/python3 tests/data/shape_ops/make_reference.py
Each case: an input x (2x3, row-major), a PyTorch call, an upstream gradient u for its result (distinct
values, so that a gradient sent to the wrong place shows); the file records the result and
d(sum(u * result))/dx.
"""
import pathlib
import sys

import torch

sys.path.insert(0, str(pathlib.Path(__file__).parent.parent))
from torch_fixture import numbers, write_header  # noqa: E402

torch.set_default_dtype(torch.float64)

X = [[1.5, -2, 3], [-0.5, 2, 1]]


def upstream(shape):
    n = 1
    for e in shape:
        n *= e
    return (torch.arange(n, dtype=torch.float64) * 0.75 - 2.0).reshape(shape)


CASES = [
    # name, x, function
    ("reshape_3x2", X, lambda x: x.reshape(3, 2)),
    ("flatten", X, lambda x: torch.flatten(x)),
    ("unsqueeze_1", X, lambda x: x.unsqueeze(1)),
    ("squeeze_of_unsqueezed", X, lambda x: x.unsqueeze(0).unsqueeze(2).squeeze()),
    ("permute_1_0", X, lambda x: x.permute(1, 0)),
    ("transpose_3d", X, lambda x: x.reshape(2, 3, 1).transpose(0, 1)),
    ("broadcast_to_4x2x3", X, lambda x: torch.broadcast_to(x, (4, 2, 3))),
    ("broadcast_to_column", X, lambda x: torch.broadcast_to(x[1].reshape(3, 1), (3, 4))),
    ("slice_step_2", X, lambda x: x[:, 0:3:2]),
    ("slice_negative_begin", X, lambda x: x[:, -2:]),
    ("select_last_row", X, lambda x: x.select(0, -1)),
    ("index_select_repeats", X, lambda x: torch.index_select(x, 1, torch.tensor([2, 0, 2]))),
    ("gather_repeats", X, lambda x: torch.gather(x, 1, torch.tensor([[2, 2], [0, 1]]))),
    ("gather_rows", X, lambda x: torch.gather(x, 0, torch.tensor([[1, 0, 1]]))),
    ("cat_dim1_with_itself", X, lambda x: torch.cat([x, x[:, :1] * 2, x], dim=1)),
    ("where_with_ties", [[1, -2, 3], [1, 2, 0.5]], lambda x: torch.where(x > 1, x * x, -x)),
    ("clamp_at_bounds", [[-1, -2, 2], [0.5, 3, 2]], lambda x: torch.clamp(x, -1, 2)),
    ("clamp_low_above_high", [[-1, -2, 2], [0.5, 3, 2]], lambda x: torch.clamp(x, 1, 0)),
]


def main():
    lines = []
    for name, x, f in CASES:
        x = torch.tensor(x, dtype=torch.float64).reshape(2, 3).requires_grad_()
        y = f(x)
        u = upstream(y.shape)
        (y * u).sum().backward()
        lines.append(f"// {name}: result shape {tuple(y.shape)}")
        lines.append(f"inline constexpr double {name}_x[] = {{{numbers(x.detach())}}};")
        lines.append(f"inline constexpr double {name}_upstream[] = {{{numbers(u)}}};")
        lines.append(f"inline constexpr double {name}_value[] = {{{numbers(y.detach())}}};")
        lines.append(f"inline constexpr double {name}_grad[] = {{{numbers(x.grad)}}};")
        lines.append("")
    write_header(__file__, "fusegrad::test::torch_shape_reference", lines)


if __name__ == "__main__":
    main()
