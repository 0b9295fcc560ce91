#!/usr/bin/env python3
"""Generates tests/fixtures/schedules.json with PyTorch (CPU): the learning rate of each of two
parameter groups (lr 0.1 and 0.03) after construction and after each of N steps, for LambdaLR
(0.95^epoch), StepLR, LinearLR, CosineAnnealingLR (past T_max, where it climbs back) and
SequentialLR of a linear warmup and a cosine decay (nanoGPT's schedule).

Regenerate (needs PyTorch from PyPI; CI does not, the output is committed):
    python3 -m venv /tmp/torchenv && /tmp/torchenv/bin/pip install torch
    /tmp/torchenv/bin/python scripts/gen_schedule_fixtures.py
"""
import json
import os

import torch
from torch.optim import lr_scheduler as S


def optimizer():
    a, b = torch.nn.Parameter(torch.zeros(2)), torch.nn.Parameter(torch.zeros(3))
    return torch.optim.SGD([{"params": [a], "lr": 0.1}, {"params": [b], "lr": 0.03}], lr=0.5)


SETUPS = {
    "lambda": ({"kind": "lambda", "base": 0.95}, lambda o: S.LambdaLR(o, lambda e: 0.95 ** e), 12),
    "step": ({"kind": "step", "step_size": 3, "gamma": 0.5}, lambda o: S.StepLR(o, 3, 0.5), 12),
    "linear": ({"kind": "linear", "start_factor": 0.01, "end_factor": 1.0, "total_iters": 10}, lambda o: S.LinearLR(o, 0.01, 1.0, 10), 15),
    "cosine": ({"kind": "cosine", "t_max": 10, "eta_min": 1e-4}, lambda o: S.CosineAnnealingLR(o, 10, 1e-4), 25),
    "warmup_cosine": ({"kind": "sequential", "warmup": 5, "t_max": 20, "eta_min": 1e-4},
                      lambda o: S.SequentialLR(o, [S.LinearLR(o, 0.01, 1.0, 5), S.CosineAnnealingLR(o, 20, 1e-4)], [5]), 30),
}


def main():
    cases = []
    for name, (args, make, steps) in SETUPS.items():
        o = optimizer()
        s = make(o)
        lrs = [[g["lr"] for g in o.param_groups]]
        for _ in range(steps):
            o.step()
            s.step()
            lrs.append([g["lr"] for g in o.param_groups])
        cases.append({"name": name, "args": args, "lrs": lrs})
    out = {"generator": "scripts/gen_schedule_fixtures.py", "torch": torch.__version__, "cases": cases}
    path = os.path.join(os.path.dirname(__file__), "..", "tests", "fixtures", "schedules.json")
    with open(path, "w") as f:
        json.dump(out, f)
    print(f"wrote {len(cases)} schedules to {os.path.normpath(path)}")


if __name__ == "__main__":
    main()
