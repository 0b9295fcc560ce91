#!/usr/bin/env python3
"""Generates tests/fixtures/creation.json with PyTorch (CPU): linspace, logspace and eye for
float32 and int32 outputs, odd and even step counts, descending and one-step ranges, so the Rust
and JS suites can hold webtensor's ranges to PyTorch's arithmetic (its two-sided linspace).

Regenerate (needs PyTorch from PyPI; CI does not, the output is committed):
    python3 -m venv /tmp/torchenv && /tmp/torchenv/bin/pip install torch
    /tmp/torchenv/bin/python scripts/gen_creation_fixtures.py
"""
import json
import os

import torch

DTYPES = {"float32": torch.float32, "int32": torch.int32}


def main():
    cases = []
    for start, end, steps in [(0, 1, 5), (-3.5, 7.25, 11), (10, -2, 4), (0.1, 0.7, 7), (2, 2, 3), (5, 9, 1), (0, 1, 0), (-1e3, 1e3, 101), (1, 1000, 64)]:
        for dt in ["float32", "int32"]:
            t = torch.linspace(start, end, steps, dtype=DTYPES[dt])
            cases.append({"op": "linspace", "args": {"start": start, "end": end, "steps": steps}, "dtype": dt, "out": t.tolist()})
    for start, end, steps, base in [(0, 3, 4, 10.0), (-2, 2, 9, 2.0), (0, 1, 5, 2.718281828459045), (1, -1, 6, 10.0), (0, 10, 11, 2.0)]:
        for dt in ["float32", "int32"]:
            t = torch.logspace(start, end, steps, base=base, dtype=DTYPES[dt])
            cases.append({"op": "logspace", "args": {"start": start, "end": end, "steps": steps, "base": base}, "dtype": dt, "out": t.tolist()})
    for n, m in [(3, 3), (2, 4), (4, 2), (0, 3), (1, 1)]:
        t = torch.eye(n, m, dtype=torch.float32)
        cases.append({"op": "eye", "args": {"n": n, "m": m}, "dtype": "float32", "out": t.reshape(-1).tolist()})
    out = {"generator": "scripts/gen_creation_fixtures.py", "torch": torch.__version__, "cases": cases}
    path = os.path.join(os.path.dirname(__file__), "..", "tests", "fixtures", "creation.json")
    with open(path, "w") as f:
        json.dump(out, f)
    print(f"wrote {len(cases)} cases to {os.path.normpath(path)}")


if __name__ == "__main__":
    main()
