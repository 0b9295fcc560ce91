#!/usr/bin/env python3
"""Generates tests/fixtures/optim.json with PyTorch (CPU): torch.optim.RMSprop over two
parameters for 6 steps of given gradients, for its defaults and for momentum + centered +
weight decay: the initial values, each step's gradients and the values after each step.

Regenerate (needs PyTorch from PyPI; CI does not, the output is committed):
    python3 -m venv /tmp/torchenv && /tmp/torchenv/bin/pip install torch
    /tmp/torchenv/bin/python scripts/gen_optim_fixtures.py
"""
import json
import os

import torch

gen = torch.Generator().manual_seed(41)
CONFIGS = {
    "rmsprop_default": {"lr": 0.01},
    "rmsprop_momentum_centered_wd": {"lr": 0.005, "alpha": 0.9, "eps": 1e-6, "weight_decay": 0.01, "momentum": 0.8, "centered": True},
}


def flat(t):
    return t.detach().reshape(-1).tolist()


def main():
    runs = []
    for name, opts in CONFIGS.items():
        ps = [torch.randn(3, 4, generator=gen).requires_grad_(True), torch.randn(5, generator=gen).requires_grad_(True)]
        init = [{"shape": list(p.shape), "data": flat(p)} for p in ps]
        opt = torch.optim.RMSprop(ps, **opts)
        steps = []
        for _ in range(6):
            grads = [torch.randn(p.shape, generator=gen) for p in ps]
            for p, g in zip(ps, grads):
                p.grad = g.clone()
            opt.step()
            steps.append({"grads": [flat(g) for g in grads], "after": [flat(p) for p in ps]})
        runs.append({"name": name, "options": opts, "params": init, "steps": steps})
    out = {"generator": "scripts/gen_optim_fixtures.py", "torch": torch.__version__, "runs": runs}
    path = os.path.join(os.path.dirname(__file__), "..", "tests", "fixtures", "optim.json")
    with open(path, "w") as f:
        json.dump(out, f)
    print(f"wrote {len(runs)} runs to {os.path.normpath(path)}")


if __name__ == "__main__":
    main()
