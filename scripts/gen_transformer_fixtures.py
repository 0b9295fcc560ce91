#!/usr/bin/env python3
"""Generates tests/fixtures/transformer.json with PyTorch (CPU): nn.MultiheadAttention (batch
first and not, a key padding mask, a bool attention mask, averaged weights),
nn.TransformerEncoderLayer (post- and pre-norm, GELU) and nn.TransformerDecoderLayer in eval mode:
their state_dicts (PyTorch's keys), inputs and outputs, for js/test/transformer.mjs.

Regenerate (needs PyTorch from PyPI; CI does not, the output is committed):
    python3 -m venv /tmp/torchenv && /tmp/torchenv/bin/pip install torch
    /tmp/torchenv/bin/python scripts/gen_transformer_fixtures.py
"""
import json
import os

import torch
import torch.nn as nn


def flat(t):
    return t.detach().reshape(-1).tolist()


def tensor(t):
    return {"shape": list(t.shape), "data": flat(t.float()), "dtype": "bool" if t.dtype == torch.bool else "f32"}


def state(m):
    return {"keys": list(m.state_dict()), "state_dict": {k: tensor(v) for k, v in m.state_dict().items()}}


def main():
    torch.manual_seed(45)
    cases = []
    E, H, L, S, N = 8, 2, 3, 4, 2
    for batch_first in [False, True]:
        mha = nn.MultiheadAttention(E, H, batch_first=batch_first).eval()
        shape = (lambda a: (N, a, E)) if batch_first else (lambda a: (a, N, E))
        q, k, v = torch.randn(shape(L)), torch.randn(shape(S)), torch.randn(shape(S))
        kpm = torch.tensor([[False, False, True, False], [False, False, False, True]])
        mask = torch.triu(torch.ones(L, S, dtype=torch.bool), diagonal=2)
        out, w = mha(q, k, v, key_padding_mask=kpm, attn_mask=mask)
        cases.append({"kind": "mha", "args": {"embed_dim": E, "num_heads": H, "batch_first": batch_first}, **state(mha),
                      "inputs": [tensor(q), tensor(k), tensor(v), tensor(kpm), tensor(mask)], "out": flat(out), "out_shape": list(out.shape),
                      "weights": flat(w), "weights_shape": list(w.shape)})
    for norm_first, act in [(False, "relu"), (True, "gelu")]:
        layer = nn.TransformerEncoderLayer(E, H, dim_feedforward=16, dropout=0.1, activation=act, batch_first=True, norm_first=norm_first).eval()
        src = torch.randn(N, L, E)
        mask = torch.triu(torch.ones(L, L, dtype=torch.bool), diagonal=1)
        out = layer(src, src_mask=mask)
        cases.append({"kind": "encoder", "args": {"d_model": E, "nhead": H, "dim_feedforward": 16, "norm_first": norm_first, "activation": act},
                      **state(layer), "inputs": [tensor(src), tensor(mask)], "out": flat(out), "out_shape": list(out.shape)})
    dec = nn.TransformerDecoderLayer(E, H, dim_feedforward=16, dropout=0.1, batch_first=True).eval()
    tgt, memory = torch.randn(N, L, E), torch.randn(N, S, E)
    tmask = torch.triu(torch.ones(L, L, dtype=torch.bool), diagonal=1)
    out = dec(tgt, memory, tgt_mask=tmask)
    cases.append({"kind": "decoder", "args": {"d_model": E, "nhead": H, "dim_feedforward": 16}, **state(dec),
                  "inputs": [tensor(tgt), tensor(memory), tensor(tmask)], "out": flat(out), "out_shape": list(out.shape)})
    out = {"generator": "scripts/gen_transformer_fixtures.py", "torch": torch.__version__, "cases": cases}
    path = os.path.join(os.path.dirname(__file__), "..", "tests", "fixtures", "transformer.json")
    with open(path, "w") as f:
        json.dump(out, f)
    print(f"wrote {len(cases)} cases to {os.path.normpath(path)}")


if __name__ == "__main__":
    main()
