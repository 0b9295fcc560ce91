#!/usr/bin/env python3
"""Generates tests/fixtures/clip.json with PyTorch (CPU): torch.nn.utils.clip_grad_norm_ (norm
types 2, 1, inf and 3; max_norm below and above the total; a parameter without a gradient) and
clip_grad_value_, as the gradients before and after and the returned total norm.

Regenerate (needs PyTorch from PyPI; CI does not, the output is committed):
    python3 -m venv /tmp/torchenv && /tmp/torchenv/bin/pip install torch
    /tmp/torchenv/bin/python scripts/gen_clip_fixtures.py
"""
import json
import math
import os

import torch

gen = torch.Generator().manual_seed(45)


def params():
    shapes = [(3, 4), (4,), (2, 2, 3)]
    ps = [torch.randn(s, generator=gen, requires_grad=True) for s in shapes]
    for p in ps:
        p.grad = torch.randn(p.shape, generator=gen) * 3
    # A parameter without a gradient (frozen or unused) is skipped.
    ps.append(torch.randn(2, generator=gen, requires_grad=True))
    return ps


def flat(t):
    return t.detach().reshape(-1).tolist() if t is not None else None


def main():
    cases = []
    for norm_type, max_norm in [(2.0, 1.0), (2.0, 1e6), (1.0, 2.5), (math.inf, 0.5), (3.0, 1.0)]:
        ps = params()
        before = [{"shape": list(p.shape), "grad": flat(p.grad)} for p in ps]
        total = torch.nn.utils.clip_grad_norm_(ps, max_norm, norm_type=norm_type)
        cases.append({"fn": "clip_grad_norm_", "max_norm": max_norm, "norm_type": "inf" if math.isinf(norm_type) else norm_type,
                      "params": before, "total_norm": total.item(), "after": [flat(p.grad) for p in ps]})
    ps = params()
    before = [{"shape": list(p.shape), "grad": flat(p.grad)} for p in ps]
    torch.nn.utils.clip_grad_value_(ps, 0.75)
    cases.append({"fn": "clip_grad_value_", "clip_value": 0.75, "params": before, "after": [flat(p.grad) for p in ps]})
    out = {"generator": "scripts/gen_clip_fixtures.py", "torch": torch.__version__, "cases": cases}
    path = os.path.join(os.path.dirname(__file__), "..", "tests", "fixtures", "clip.json")
    with open(path, "w") as f:
        json.dump(out, f)
    print(f"wrote {len(cases)} cases to {os.path.normpath(path)}")


if __name__ == "__main__":
    main()
