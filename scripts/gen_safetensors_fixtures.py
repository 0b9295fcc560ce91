#!/usr/bin/env python3
"""Generates the .safetensors fixtures with PyTorch and Hugging Face's `safetensors` package:

- tests/fixtures/token_net.safetensors: the token model's initial state dict from train.json
  (BatchNorm's num_batches_tracked in int64, as PyTorch keeps it);
- tests/fixtures/mlp.safetensors: the first MLP run's initial state dict, metadata
  {"format": "pt"}: webtensor's save of the same dict must give these bytes exactly;
- tests/fixtures/dtypes.safetensors: one tensor of each dtype webtensor converts on load (values
  in the test);
- tests/fixtures/big_int64.safetensors: an int64 outside int32's range, which load refuses.

Regenerate (needs PyPI; CI does not, the output is committed):
    python3 -m venv /tmp/torchenv && /tmp/torchenv/bin/pip install torch safetensors
    /tmp/torchenv/bin/python scripts/gen_safetensors_fixtures.py
"""
import json
import os

import torch
from safetensors.torch import save_file

here = os.path.join(os.path.dirname(__file__), "..", "tests", "fixtures")
train = json.load(open(os.path.join(here, "train.json")))

DTYPES = {"f32": torch.float32, "i32": torch.int64}


def state(d):
    return {k: torch.tensor(v["data"], dtype=DTYPES[v.get("dtype", "f32")]).reshape(v["shape"]) for k, v in d.items()}


save_file(state(train["token_net"]["state_dict"]), os.path.join(here, "token_net.safetensors"))
mlp = {k: torch.tensor(v["data"], dtype=torch.float32).reshape(v["shape"]) for k, v in train["mlp"][0]["state_dict"].items()}
save_file(mlp, os.path.join(here, "mlp.safetensors"), metadata={"format": "pt"})
save_file(
    {
        "f64": torch.tensor([1.5, -2.25, 1e-3, 1e300], dtype=torch.float64),
        "bf16": torch.tensor([1.0, -0.5, 3.140625], dtype=torch.bfloat16),
        "f16": torch.tensor([[0.5, -1.0], [65504.0, 0.0]], dtype=torch.float16),
        "i64": torch.tensor([-5, 2**31 - 1, -(2**31)], dtype=torch.int64),
        "i16": torch.tensor([-32768, 7], dtype=torch.int16),
        "i8": torch.tensor([-128, 127], dtype=torch.int8),
        "u8": torch.tensor([0, 255], dtype=torch.uint8),
        "bool": torch.tensor([True, False, True]),
        "i32": torch.tensor([[1, -2, 3]], dtype=torch.int32),
        "scalar": torch.tensor(2.5),
    },
    os.path.join(here, "dtypes.safetensors"),
    metadata={"source": "webtensor fixtures"},
)
save_file({"count": torch.tensor([1, 2**40], dtype=torch.int64)}, os.path.join(here, "big_int64.safetensors"))
print("wrote the .safetensors fixtures to", os.path.normpath(here))
