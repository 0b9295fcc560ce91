#!/usr/bin/env python3
"""Generates tests/fixtures/int8.json: what PyTorch (CPU) gives for uint8 and int8 tensors:
casts in and out, wrapping arithmetic, promotion with other dtypes, comparisons, reductions
(sums in a wider type), and the ops that move or pick elements. The Rust suite (tests/int8.rs)
and the JS suite (js/test/int8.mjs) compare against it on every device. Each case: op, inputs
(values and dtype), output values and dtype (webtensor's name: sums and the promotion of u8
with i8 are i32 where PyTorch gives int64/int16, which the suites map).

Casts from floats outside [-2^31, 2^31) are left out: PyTorch leaves them undefined (webtensor
saturates to i32, then keeps the low 8 bits).

Regenerate (needs PyTorch from PyPI; CI does not, the output is committed):
    python3 -m venv /tmp/torchenv && /tmp/torchenv/bin/pip install torch
    /tmp/torchenv/bin/python scripts/gen_int8_fixtures.py
"""
import json
import math
import os

import torch

NAMES = {torch.uint8: "u8", torch.int8: "i8", torch.int32: "i32", torch.float32: "f32", torch.bool: "bool",
         torch.int64: "i32", torch.int16: "i32"}
U8 = [0, 1, 7, 100, 128, 200, 250, 255]
I8 = [-128, -100, -1, 0, 1, 50, 100, 127]


def enc(x):
    """A number for JSON: infinities and NaN as "inf", "-inf", "nan", as the other fixtures."""
    return x if math.isfinite(x) else ("nan" if math.isnan(x) else ("inf" if x > 0 else "-inf"))


def t(values, dtype):
    return torch.tensor(values, dtype=dtype)


def case(name, op, inputs, out, **args):
    return {
        "name": name,
        "op": op,
        "args": args,
        "inputs": [{"data": x.reshape(-1).tolist(), "dtype": NAMES[x.dtype], "shape": list(x.shape)} for x in inputs],
        "out": [enc(float(v)) for v in out.reshape(-1).tolist()],
        "out_dtype": NAMES[out.dtype],
        "out_shape": list(out.shape),
    }


def cases():
    c = []
    u, i = t(U8, torch.uint8), t(I8, torch.int8)
    f = t([-1.0, 0.0, 0.5, 1.9, -2.7, 127.5, 128.0, 255.0, 256.0, 300.0, -129.0, 1000.0], torch.float32)
    ints = t([-1, 0, 255, 256, 511, -129, 70000, -2147483648], torch.int32)
    for dt in (torch.uint8, torch.int8):
        n = NAMES[dt]
        c.append(case(f"f32_to_{n}", "cast", [f], f.to(dt), dtype=n))
        c.append(case(f"i32_to_{n}", "cast", [ints], ints.to(dt), dtype=n))
    c.append(case("u8_to_f32", "cast", [u], u.float(), dtype="f32"))
    c.append(case("i8_to_f32", "cast", [i], i.float(), dtype="f32"))
    c.append(case("u8_to_i8", "cast", [u], u.to(torch.int8), dtype="i8"))
    c.append(case("i8_to_u8", "cast", [i], i.to(torch.uint8), dtype="u8"))
    c.append(case("u8_to_bool", "cast", [u], u.bool(), dtype="bool"))
    u2, i2 = u.flip(0), i.flip(0)
    for name, fn in [("add", torch.add), ("sub", torch.sub), ("mul", torch.mul), ("maximum", torch.maximum),
                     ("minimum", torch.minimum), ("div", torch.div), ("remainder", torch.remainder),
                     ("floor_divide", torch.floor_divide), ("bitwise_xor", torch.bitwise_xor)]:
        for a, b, n in ((u, u2, "u8"), (i, i2, "i8")):
            if name in ("remainder", "floor_divide"):
                # PyTorch raises on an integer zero divisor (webtensor gives 0, as NumPy).
                b = torch.where(b == 0, torch.ones_like(b), b)
            c.append(case(f"{name}_{n}", "binary", [a, b], fn(a, b), fn=name))
    for name, fn in [("eq", torch.eq), ("lt", torch.lt), ("ge", torch.ge)]:
        c.append(case(f"{name}_u8", "binary", [u, u2], fn(u, u2), fn=name))
        c.append(case(f"{name}_i8", "binary", [i, i2], fn(i, i2), fn=name))
    c.append(case("add_scalar_u8", "scalar", [u], u + 10, fn="add", s=10))
    c.append(case("mul_scalar_i8", "scalar", [i], i * 3, fn="mul", s=3))
    c.append(case("sub_scalar_u8", "scalar", [u], u - 1, fn="sub", s=1))
    c.append(case("promote_u8_i8", "binary", [u, i], u + i, fn="add"))
    c.append(case("promote_u8_i32", "binary", [u, t([1000] * 8, torch.int32)], u + t([1000] * 8, torch.int32), fn="add"))
    c.append(case("promote_i8_f32", "binary", [i, t([0.5] * 8, torch.float32)], i * 0.5, fn="mul"))
    for a, n in ((u, "u8"), (i, "i8")):
        c.append(case(f"neg_{n}", "unary", [a], -a, fn="neg"))
        c.append(case(f"abs_{n}", "unary", [a], a.abs(), fn="abs"))
        # The JS method's name: the JS suite calls x[fn]() (Rust maps it to bitwise_not).
        c.append(case(f"bitwise_not_{n}", "unary", [a], torch.bitwise_not(a), fn="bitwiseNot"))
        c.append(case(f"sum_{n}", "sum", [a], a.sum(), fn="sum"))
        c.append(case(f"max_{n}", "max", [a], a.max(), fn="max"))
        c.append(case(f"argmin_{n}", "argmin", [a], a.argmin(), fn="argmin"))
        c.append(case(f"cumsum_{n}", "cumsum", [a], a.cumsum(0)))
        c.append(case(f"sort_{n}", "sort", [a], a.sort(descending=True).values))
        m = a.reshape(2, 4)
        c.append(case(f"matmul_{n}", "matmul", [m, m.t().contiguous()], m @ m.t()))
        c.append(case(f"flip_t_{n}", "flip_t", [m], m.t().flip(0)))
        c.append(case(f"index_select_{n}", "index_select", [m, t([3, 0, 3], torch.int32)], m.index_select(1, t([3, 0, 3], torch.int32))))
        c.append(case(f"where_{n}", "where", [a, a.flip(0)], torch.where(a > a.flip(0), a, a.flip(0))))
        c.append(case(f"cat_{n}", "cat", [a, a[:3]], torch.cat([a, a[:3]])))
    return c


def main():
    path = os.path.join(os.path.dirname(__file__), "..", "tests", "fixtures", "int8.json")
    out = cases()
    with open(path, "w") as f:
        json.dump({"generator": "scripts/gen_int8_fixtures.py", "torch": torch.__version__, "cases": out}, f, allow_nan=False)
        f.write("\n")
    print(f"wrote {len(out)} cases to {os.path.normpath(path)}")


if __name__ == "__main__":
    main()
