#!/usr/bin/env python3
"""Generates tests/fixtures/sort.json: outputs and gradients computed by PyTorch (CPU) for
sorting (sort, argsort, topk) and scatter, in the case format of scripts/gen_grad_fixtures.py,
which the Rust suite (tests/sort.rs) and the JS suite (js/test/sort.mjs) compare against on every
device. Sorts are PyTorch's stable ones (webtensor's sort is always stable), NaN sorts above
everything, -0 ties with +0. Index outputs are compared as numbers.

Regenerate (needs PyTorch from PyPI; CI does not, the output is committed):
    python3 -m venv /tmp/torchenv && /tmp/torchenv/bin/pip install torch
    /tmp/torchenv/bin/python scripts/gen_sort_fixtures.py
"""
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(__file__))
from gen_grad_fixtures import idx, inp, run, write  # noqa: E402

gen = torch.Generator().manual_seed(777)
nan, inf = float("nan"), float("inf")


def randn(*shape):
    return torch.randn(shape, generator=gen)


def ints(lo, hi, *shape):
    return torch.randint(lo, hi, shape, generator=gen, dtype=torch.int32)


def sort(x, a):
    return torch.sort(x[0], dim=a["dim"], descending=a["descending"], stable=True)


OPS = {
    "sort_values": lambda x, a: sort(x, a).values,
    "sort_indices": lambda x, a: sort(x, a).indices,
    "argsort": lambda x, a: torch.argsort(x[0], dim=a["dim"], descending=a["descending"], stable=True),
    "topk_values": lambda x, a: torch.topk(x[0], a["k"], dim=a["dim"], largest=a["largest"]).values,
    "topk_indices": lambda x, a: torch.topk(x[0], a["k"], dim=a["dim"], largest=a["largest"]).indices,
    "scatter": lambda x, a: x[0].scatter(a["dim"], x[1].long(), x[2]),
    "scatter_value": lambda x, a: x[0].scatter(a["dim"], x[1].long(), a["value"]),
}


def cases():
    c = []
    add = lambda name, op, ins, **args: c.append((name, op, ins, args))
    # Ties (stable order), NaN, infinities and both zeros in one row.
    special = torch.tensor([[3.0, -0.0, nan, 1.0, -inf, 0.0, 1.0, inf, -2.5, nan, 1.0]])
    for desc in (False, True):
        tag = "desc" if desc else "asc"
        add(f"sort_special_{tag}", "sort_values", [inp(special, grad=False)], dim=-1, descending=desc)
        add(f"sort_special_{tag}_indices", "sort_indices", [inp(special, grad=False)], dim=-1, descending=desc)
        ties = ints(0, 4, 3, 13)
        add(f"argsort_int_ties_{tag}", "argsort", [inp(ties, grad=False, dtype="i32")], dim=1, descending=desc)
    # Lengths around powers of two (padding of the bitonic network), several rows, other dims.
    for n in (1, 2, 5, 16, 37, 300):
        add(f"sort_len{n}", "sort_values", [inp(randn(3, n))], dim=-1, descending=False)
        add(f"argsort_len{n}", "argsort", [inp(randn(2, n), grad=False)], dim=-1, descending=True)
    add("argsort_len3000", "argsort", [inp(randn(1, 3000), grad=False)], dim=-1, descending=False)
    add("sort_dim0", "sort_values", [inp(randn(6, 4))], dim=0, descending=True)
    add("sort_dim0_indices", "sort_indices", [inp(randn(6, 4), grad=False)], dim=0, descending=False)
    add("sort_middle_dim", "sort_values", [inp(randn(2, 5, 3))], dim=1, descending=False)
    add("sort_transposed_view", "sort_values", [inp(randn(4, 7), v="t")], dim=-1, descending=False)
    add("sort_empty_dim", "sort_values", [inp(randn(3, 0), grad=False)], dim=-1, descending=False)
    add("argsort_empty_rows", "argsort", [inp(randn(0, 4), grad=False)], dim=1, descending=False)
    # topk: largest and smallest, k = 0 and k = n, NaN counted as the largest, other dims.
    add("topk_largest", "topk_values", [inp(randn(4, 9))], k=3, dim=-1, largest=True)
    add("topk_largest_indices", "topk_indices", [inp(randn(4, 9), grad=False)], k=3, dim=-1, largest=True)
    add("topk_smallest", "topk_values", [inp(randn(4, 9))], k=4, dim=1, largest=False)
    add("topk_dim0", "topk_values", [inp(randn(5, 3))], k=2, dim=0, largest=True)
    add("topk_all", "topk_values", [inp(randn(2, 6))], k=6, dim=-1, largest=True)
    add("topk_none", "topk_values", [inp(randn(2, 6), grad=False)], k=0, dim=-1, largest=True)
    add("topk_nan", "topk_values", [inp(torch.tensor([[1.0, nan, 5.0, -inf, 2.0]]), grad=False)],
        k=2, dim=-1, largest=True)
    add("topk_nan_indices", "topk_indices", [inp(torch.tensor([[1.0, nan, 5.0, -inf, 2.0]]), grad=False)],
        k=2, dim=-1, largest=True)
    add("topk_long_row", "topk_values", [inp(randn(2, 300))], k=5, dim=-1, largest=True)
    # The GPUs' selection kernel at its largest k (32), rows cut into chunks, both directions.
    add("topk_many_rows", "topk_values", [inp(randn(64, 2000))], k=32, dim=-1, largest=True)
    add("topk_many_rows_smallest", "topk_indices", [inp(randn(64, 2000), grad=False)], k=32, dim=-1, largest=False)
    add("topk_int", "topk_values", [inp(torch.tensor([[7, -3, 12, 0, 5]], dtype=torch.int32), grad=False, dtype="i32")],
        k=3, dim=-1, largest=True)
    # scatter: a source tensor (a larger one: only the covered part takes part), a value, dims 0
    # and 1, and indices that name no position twice (PyTorch leaves repeated ones unspecified).
    add("scatter_dim0", "scatter", [inp(randn(3, 5)), idx([[0, 1, 2, 0, 0], [2, 0, 0, 1, 2]]), inp(randn(2, 5))],
        dim=0)
    add("scatter_dim1_larger_src", "scatter", [inp(randn(3, 5)), idx([[4, 0], [1, 2], [0, 3]]),
        # PyTorch's backward cannot give a larger src its gradient (it fails on the shape).
        inp(randn(3, 4), grad=False)], dim=1)
    add("scatter_value", "scatter_value", [inp(randn(2, 4)), idx([[1, 3], [0, 2]])], dim=1, value=-1.5)
    add("scatter_3d", "scatter", [inp(randn(2, 3, 4)), idx([[[0, 3], [1, 2], [2, 1]], [[3, 0], [0, 1], [1, 3]]]),
                                  inp(randn(2, 3, 2))], dim=2)
    # A transposed view as the input, and an empty index (nothing is written).
    add("scatter_view_input", "scatter", [inp(randn(5, 3), v="t"), idx([[4, 0], [2, 3], [1, 2]]), inp(randn(3, 2))],
        dim=1)
    add("scatter_empty_index", "scatter", [inp(randn(2, 3)), idx([], shape=(0, 3)), inp(randn(1, 3))], dim=0)
    return c


def main():
    write("sort.json", "scripts/gen_sort_fixtures.py", run(cases(), OPS))


if __name__ == "__main__":
    main()
