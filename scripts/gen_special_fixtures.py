#!/usr/bin/env python3
"""Generates tests/fixtures/special.json: PyTorch's (CPU) answers on special values (zeros of
both signs, subnormals, tiny, huge, infinities, NaN) for every elementwise op, which
tests/special_values.rs holds every device to (bit for bit for integers, bools and
comparisons; within a stated bound for floats).

Regenerate (needs PyTorch from PyPI; CI does not, the output is committed):
    python3 -m venv /tmp/torchenv && /tmp/torchenv/bin/pip install torch
    /tmp/torchenv/bin/python scripts/gen_special_fixtures.py

Floats are stored as their f32 bit patterns (u32), so NaN, infinities and -0 survive JSON.
"""
import json
import os

import torch
import torch.nn.functional as F

POSITIVE = [
    0.0, 1e-45, 1e-40, 1.1754944e-38, 1e-30, 1e-10, 1e-6, 1e-4, 1e-3, 0.01, 0.1, 0.25, 0.5, 0.625,
    0.7, 0.9, 0.99, 1.0, 1.01, 1.5, 2.0, 2.5, 3.0, 3.14159265, 5.0, 7.5, 10.0, 15.0, 20.0, 30.0,
    50.0, 88.0, 89.0, 100.0, 1e3, 1e4, 1e6, 1e10, 1e20, 1e30, 3.4e38, float("inf"),
]
GRID = torch.tensor(POSITIVE + [-x for x in POSITIVE] + [float("nan")], dtype=torch.float32)
# Pairs for binary ops: every combination of a smaller grid.
SMALL = torch.tensor([0.0, -0.0, 1e-40, 0.5, 1.0, -1.0, 2.5, 3.0, -3.0, 3e38, float("inf"), float("-inf"), float("nan")])
INTS = torch.tensor([0, 1, -1, 7, -7, 46341, -46341, 2**31 - 1, -(2**31)], dtype=torch.int32)

UNARY = {
    "neg": torch.neg, "abs": torch.abs, "exp": torch.exp, "log": torch.log, "sqrt": torch.sqrt,
    "rsqrt": torch.rsqrt, "reciprocal": torch.reciprocal, "square": torch.square, "sin": torch.sin,
    "cos": torch.cos, "tanh": torch.tanh, "sigmoid": torch.sigmoid, "relu": torch.relu,
    "gelu": F.gelu, "erf": torch.erf, "silu": F.silu, "floor": torch.floor, "ceil": torch.ceil,
    "round": torch.round, "sign": torch.sign,
}
INT_UNARY = ["neg", "abs", "square", "relu", "sign"]
BINARY = {
    "add": torch.add, "sub": torch.sub, "mul": torch.mul, "div": torch.div, "pow": torch.pow,
    "maximum": torch.maximum, "minimum": torch.minimum, "eq": torch.eq, "ne": torch.ne,
    "lt": torch.lt, "le": torch.le, "gt": torch.gt, "ge": torch.ge,
}
INT_BINARY = ["add", "sub", "mul", "maximum", "minimum", "eq", "ne", "lt", "le", "gt", "ge"]


def bits(t):
    """f32 values as u32 bit patterns; bools and ints as Python ints."""
    if t.dtype == torch.float32:
        return [v & 0xFFFFFFFF for v in t.contiguous().view(torch.int32).tolist()]
    return [int(v) for v in t.tolist()]


def main():
    a = SMALL.repeat_interleave(len(SMALL))
    b = SMALL.repeat(len(SMALL))
    ia = INTS.repeat_interleave(len(INTS))
    ib = INTS.repeat(len(INTS))
    out = {
        "grid": bits(GRID),
        "unary": {name: bits(f(GRID)) for name, f in UNARY.items()},
        "int_grid": bits(INTS),
        "int_unary": {name: bits(UNARY[name](INTS)) for name in INT_UNARY},
        "pairs": [bits(a), bits(b)],
        "binary": {name: bits(f(a, b)) for name, f in BINARY.items()},
        "int_pairs": [bits(ia), bits(ib)],
        "int_binary": {name: bits(BINARY[name](ia, ib)) for name in INT_BINARY},
        "to_bool": bits(GRID.bool()),
        "isnan": bits(GRID.isnan()),
        "isinf": bits(GRID.isinf()),
        "isfinite": bits(GRID.isfinite()),
        "where": bits(torch.where(GRID.bool(), torch.tensor(1.0), torch.tensor(0.0))),
        "clamp_1_2": bits(GRID.clamp(1.0, 2.0)),
        "clamp_2_1": bits(GRID.clamp(2.0, 1.0)),
        "clamp_min_0": bits(GRID.clamp(min=0.0)),
        "torch": torch.__version__,
    }
    path = os.path.join(os.path.dirname(__file__), "..", "tests", "fixtures", "special.json")
    with open(path, "w") as f:
        json.dump(out, f, separators=(",", ":"))
        f.write("\n")
    print(f"wrote {path}: {len(GRID)} grid values, {len(a)} pairs")


if __name__ == "__main__":
    main()
