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
    "round": torch.round, "sign": torch.sign, "log1p": torch.log1p, "expm1": torch.expm1,
    "tan": torch.tan, "asin": torch.asin, "acos": torch.acos, "atan": torch.atan, "sinh": torch.sinh,
    "cosh": torch.cosh, "asinh": torch.asinh, "acosh": torch.acosh, "atanh": torch.atanh,
    "softplus": F.softplus, "mish": F.mish, "hardswish": F.hardswish, "hardsigmoid": F.hardsigmoid,
    "elu": F.elu, "gelu_tanh": lambda x: F.gelu(x, approximate="tanh"),
}
INT_UNARY = ["neg", "abs", "square", "relu", "sign"]
BINARY = {
    "add": torch.add, "sub": torch.sub, "mul": torch.mul, "div": torch.div, "pow": torch.pow,
    "maximum": torch.maximum, "minimum": torch.minimum, "eq": torch.eq, "ne": torch.ne,
    "lt": torch.lt, "le": torch.le, "gt": torch.gt, "ge": torch.ge, "atan2": torch.atan2,
    "floor_divide": torch.floor_divide,
}
FMOD_LIKE = {"remainder": torch.remainder, "fmod": torch.fmod}
# Scalar exponents of `pow`: PyTorch's special ones (its kernels compute x ** 3 as x * x * x, 0.5
# as sqrt, -0.5 as rsqrt, -1 and -2 as reciprocals: other values than pow's on -0, -inf and
# negative bases) and two general ones.
POW_EXPONENTS = [3.0, 0.5, -0.5, -1.0, -2.0, 2.0, 2.5, -1.5]


def prelu_pairs(a, b):
    """PyTorch's prelu per element (its weight is per channel, so each pair is one channel):
    F.prelu of each `a` value with each `b` as a one-element weight, which the pairs enumerate."""
    return torch.stack([F.prelu(x.reshape(1), y.reshape(1)) for x, y in zip(a, b)]).reshape(-1)
INT_BINARY = ["add", "sub", "mul", "maximum", "minimum", "eq", "ne", "lt", "le", "gt", "ge"]
# Integer-only ops; shifts take the shift counts of SHIFTS.
BITWISE = {
    "bitwise_and": torch.bitwise_and, "bitwise_or": torch.bitwise_or, "bitwise_xor": torch.bitwise_xor,
}
SHIFTS = torch.tensor([0, 1, 5, 31, 32, 33, -1, 100], dtype=torch.int32)
# Integer division: PyTorch raises on a zero divisor (webtensor gives 0, as NumPy) and overflows
# on i32::MIN / -1 (webtensor wraps), so those pairs are computed here in int64 with those rules.
INT_DIVISION = ["remainder", "fmod", "floor_divide"]


def int_division(name, a, b):
    out = []
    for x, y in zip(a.tolist(), b.tolist()):
        if y == 0:
            out.append(0)
            continue
        q = abs(x) // abs(y) * (1 if (x < 0) == (y < 0) else -1)  # truncated quotient
        r = x - q * y
        if name == "fmod":
            v = r
        elif name == "remainder":
            v = r + y if r != 0 and (r < 0) != (y < 0) else r
        else:
            v = q - 1 if r != 0 and (r < 0) != (y < 0) else q
        out.append((v + 2**31) % 2**32 - 2**31)
    return out


def check_int_division_against_torch(a, b):
    """The pairs torch does define must agree with int_division."""
    ok = (b != 0) & ~((a == -(2**31)) & (b == -1))
    for name in INT_DIVISION:
        want = int_division(name, a[ok], b[ok])
        got = bits(getattr(torch, name)(a[ok], b[ok]))
        assert want == got, (name, want, got)


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
    check_int_division_against_torch(ia, ib)
    sa = INTS.repeat_interleave(len(SHIFTS))
    sb = SHIFTS.repeat(len(INTS))
    out = {
        "grid": bits(GRID),
        "unary": {name: bits(f(GRID)) for name, f in UNARY.items()},
        "int_grid": bits(INTS),
        "int_unary": {name: bits(UNARY[name](INTS)) for name in INT_UNARY},
        "pairs": [bits(a), bits(b)],
        "binary": {
            **{name: bits(f(a, b)) for name, f in BINARY.items()},
            # PyTorch's vectorised f32 fmod goes through a / b, so it gives NaN where that
            # quotient overflows (fmod(3e38, 0.5)); C's fmod, which webtensor computes, is exact:
            # its answer is PyTorch's in float64, where the quotient fits, rounded to f32.
            **{name: bits(f(a.double(), b.double()).float()) for name, f in FMOD_LIKE.items()},
            "prelu": bits(prelu_pairs(a, b)),
        },
        "pow_scalar": {repr(e): bits(torch.pow(GRID, e)) for e in POW_EXPONENTS},
        "int_pairs": [bits(ia), bits(ib)],
        "int_binary": {
            **{name: bits(BINARY[name](ia, ib)) for name in INT_BINARY},
            **{name: bits(f(ia, ib)) for name, f in BITWISE.items()},
            **{name: int_division(name, ia, ib) for name in INT_DIVISION},
        },
        "shift_pairs": [bits(sa), bits(sb)],
        "shifts": {
            "bitwise_left_shift": bits(torch.bitwise_left_shift(sa, sb)),
            "bitwise_right_shift": bits(torch.bitwise_right_shift(sa, sb)),
        },
        # Truth: nonzero is true, NaN included, -0.0 not.
        "logical": {name: bits(getattr(torch, name)(a, b)) for name in ["logical_and", "logical_or", "logical_xor"]},
        "logical_not": bits(GRID.logical_not()),
        "bitwise_not": bits(~INTS),
        # all/any over the 13 rows of 13 of the pairs' sums (a + b in f32).
        "all_rows": bits((a + b).reshape(len(SMALL), -1).all(dim=1)),
        "any_rows": bits((a + b).reshape(len(SMALL), -1).any(dim=1)),
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
