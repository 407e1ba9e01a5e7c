#!/usr/bin/python3
"""Writes torch_reference.hpp: einsum and broadcasting element-wise operations from PyTorch (CPU, float64).

Run with Debian's python3-torch: /usr/bin/python3 tests/data/einsum/make_reference.py
Each case: operands of random values (a fixed seed), a random R shaped like the result; the file records
the result and each operand's gradient of sum(result * R). A case whose operands are one tensor ("ij,ij->"
of x and x) records the gradient of that tensor: the sum over its occurrences.
"""
import pathlib
import sys

import torch

sys.path.insert(0, str(pathlib.Path(__file__).parent.parent))
from torch_fixture import numbers, write_header  # noqa: E402

torch.set_default_dtype(torch.float64)

EINSUM = [
    # name, subscripts, operand shapes, the operands are one tensor
    ("matmul", "ij,jk->ik", [(2, 3), (3, 4)], False),
    ("matmul_implicit", "ij,jk", [(2, 3), (3, 4)], False),
    ("transpose", "ij->ji", [(2, 3)], False),
    ("diagonal", "ii->i", [(3, 3)], False),
    ("diagonal_of_3d", "iji->ij", [(2, 3, 2)], False),
    ("trace", "ii->", [(3, 3)], False),
    ("trace_implicit", "ii", [(3, 3)], False),
    ("batch_traces", "bii->b", [(2, 3, 3)], False),
    ("sum_all", "ij->", [(2, 3)], False),
    ("sum_and_contract", "ijk,k->ji", [(2, 3, 4), (4,)], False),
    ("label_of_one_operand", "ij,k->i", [(2, 3), (4,)], False),
    ("batch_matmul", "bij,bjk->bik", [(2, 2, 3), (2, 3, 2)], False),
    ("ellipsis_broadcast", "...ij,...jk->...ik", [(2, 1, 2, 3), (3, 3, 2)], False),
    ("ellipsis_summed", "...i->i", [(2, 3, 4)], False),
    ("ellipsis_implicit", "i...", [(2, 3, 4)], False),
    ("chain_of_three", "ij,jk,kl->il", [(2, 3), (3, 4), (4, 2)], False),
    ("product_of_four", "i,i,i,i->", [(3,), (3,), (3,), (3,)], False),
    ("one_tensor_twice", "ij,ij->", [(2, 3), (2, 3)], True),
    ("one_tensor_squared", "ij,jk->ik", [(3, 3), (3, 3)], True),
    ("label_broadcast", "ij,ij->ij", [(2, 3), (1, 3)], False),
    ("outer_implicit", "i,j", [(2,), (3,)], False),
    ("upper_case", "aB,Bc->ac", [(2, 3), (3, 2)], False),
    ("scalar_operand", "ij,,jk->ik", [(2, 3), (), (3, 4)], False),
    ("diagonal_times_vector", "ii,i->i", [(3, 3), (3,)], False),
    # three operands or more: the gradients go back through the pairwise contractions
    ("chain_with_diagonal", "iij,jk,kl->il", [(2, 2, 3), (3, 4), (4, 2)], False),
    ("chain_to_scalar", "ij,jk,kl->", [(2, 3), (3, 4), (4, 2)], False),
    ("batched_chain", "bij,bjk,bkl->bil", [(2, 2, 3), (2, 3, 2), (2, 2, 3)], False),
    ("shared_by_three", "ij,j,jk->ik", [(2, 3), (3,), (3, 4)], False),
    ("chain_with_summed_label", "ijx,jk,kl->il", [(2, 3, 2), (3, 4), (4, 2)], False),
    ("chain_with_broadcast", "...ij,jk,...k->...i", [(1, 2, 3), (3, 4), (2, 4)], False),
    ("label_broadcast_in_three", "ij,ij,j->i", [(2, 3), (1, 3), (3,)], False),
    ("one_tensor_thrice", "ij,jk,kl->il", [(3, 3), (3, 3), (3, 3)], True),
]

ELEMENTWISE = [
    # name, operand shapes, function
    ("mul_broadcast", [(2, 1, 3), (4, 1)], lambda a, b: a * b),
    ("sub_broadcast", [(3,), (2, 1)], lambda a, b: a - b),
    ("div_broadcast_column", [(2, 3), (2, 1)], lambda a, b: a / (b * b + 1)),
    ("fused_broadcast_chain", [(2, 1, 3), (4, 3)], lambda a, b: torch.sin(a) * b + torch.exp(-b) / (1 + a * a)),
]


def shape_type(shape):
    return "fusegrad::Shape<" + ", ".join(str(e) for e in shape) + ">"


def case(name, shapes, f, lines, subscripts=None, one_tensor=False):
    if one_tensor:
        x = torch.randn(shapes[0]).requires_grad_()
        operands = [x] * len(shapes)
    else:
        operands = [torch.randn(s).requires_grad_() for s in shapes]
    y = f(*operands)
    r = torch.randn(y.shape)
    (y * r).sum().backward()
    distinct = operands[:1] if one_tensor else operands
    lines.append(f"struct {name} {{")
    if subscripts is not None:
        lines.append(f'  static constexpr char subscripts[] = "{subscripts}";')
    lines.append(f"  static constexpr bool one_tensor = {'true' if one_tensor else 'false'};")
    lines.append(f"  using shapes = boost::mp11::mp_list<{', '.join(shape_type(s) for s in shapes)}>;")
    lines.append(f"  using result_shape = {shape_type(tuple(y.shape))};")
    for k, t in enumerate(distinct):
        lines.append(f"  static constexpr double operand_{k}[] = {{{numbers(t.detach())}}};")
    lines.append(f"  static constexpr const double* operands[] = {{{', '.join(f'operand_{k}' for k in range(len(distinct)))}}};")
    lines.append(f"  static constexpr double upstream[] = {{{numbers(r)}}};")
    lines.append(f"  static constexpr double value[] = {{{numbers(y.detach())}}};")
    for k, t in enumerate(distinct):
        lines.append(f"  static constexpr double grad_{k}[] = {{{numbers(t.grad)}}};")
    lines.append(f"  static constexpr const double* grads[] = {{{', '.join(f'grad_{k}' for k in range(len(distinct)))}}};")
    lines.append("};")
    lines.append("")


def main():
    torch.manual_seed(2026)
    lines = []
    for name, subscripts, shapes, one_tensor in EINSUM:
        case(name, shapes, lambda *xs, s=subscripts: torch.einsum(s, *xs), lines, subscripts, one_tensor)
    lines.append(f"using einsum_cases = boost::mp11::mp_list<{', '.join(c[0] for c in EINSUM)}>;")
    lines.append("")
    for name, shapes, f in ELEMENTWISE:
        case(name, shapes, f, lines)
    write_header(__file__, "fusegrad::test::torch_einsum_reference", lines,
                 includes=["<boost/mp11/list.hpp>", "", "<fusegrad/shape/shape.hpp>"])


if __name__ == "__main__":
    main()
