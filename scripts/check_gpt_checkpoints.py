#!/usr/bin/env python3
"""nanoGPT checkpoints both ways between PyTorch and webtensor, as .safetensors.

1. PyTorch -> webtensor: a nanoGPT model (model.py's modules and names, tied embedding, as
   scripts/gen_gpt_fixtures.py writes them) saved with `safetensors.torch.save_model` (the
   library's way for tied weights: one of the two names is written), plus the logits PyTorch
   computes for a fixed batch, into tests/fixtures/nanogpt.safetensors and nanogpt.json.
   tests/gpt.rs loads that file into webtensor's Gpt on every device and compares the logits
   (CI does this without PyTorch; the files are committed).
2. webtensor -> PyTorch: trains nanoGPT's CPU-config GPT for 600 steps with the binary (`webtensor train --model gpt
   --config cpu --iters 600`), loads its checkpoint into the nanoGPT model in PyTorch (config and
   vocabulary from the file's metadata) and checks that greedy text from a prompt is the same
   characters `webtensor sample --top-k 1` prints, and that PyTorch's loss on the validation
   text is what webtensor reported.

Run (needs PyTorch and safetensors from PyPI, and a release build of the binary):
    /tmp/torchenv/bin/pip install torch safetensors
    cargo build --release -p webtensor-native
    /tmp/torchenv/bin/python scripts/check_gpt_checkpoints.py [--write-fixture]
"""
import json
import os
import subprocess
import sys
import tempfile

import torch
from safetensors import safe_open
from safetensors.torch import load_file, save_model

sys.path.insert(0, os.path.dirname(__file__))
from gen_gpt_fixtures import GPT  # noqa: E402  (nanoGPT's model.py, as the fixtures use it)

ROOT = os.path.join(os.path.dirname(__file__), "..")
FIXTURES = os.path.join(ROOT, "tests", "fixtures")
BINARY = os.path.join(ROOT, "target", "release", "webtensor")


def write_fixture():
    config = dict(vocab_size=13, block_size=12, n_layer=2, n_head=2, n_embd=16, dropout=0.0, bias=True)
    torch.manual_seed(2024)
    model = GPT(config)
    # Move every weight off its initial value, so the file is not mistaken for an init.
    with torch.no_grad():
        for p in model.parameters():
            p.add_(0.05 * torch.randn_like(p))
    model.eval()
    idx = torch.randint(0, config["vocab_size"], (2, 10), generator=torch.Generator().manual_seed(3))
    with torch.no_grad():
        logits, _ = model(idx)
    path = os.path.join(FIXTURES, "nanogpt.safetensors")
    save_model(model, path, metadata={"config": json.dumps(config)})
    with safe_open(path, "pt") as f:
        keys = sorted(f.keys())
    with open(os.path.join(FIXTURES, "nanogpt.json"), "w") as f:
        json.dump({"config": config, "keys": keys, "idx": idx.reshape(-1).tolist(), "shape": list(idx.shape), "logits": logits.reshape(-1).tolist()}, f)
    print(f"wrote {path} ({len(keys)} tensors; the tied pair saved once: {[k for k in keys if k in ('lm_head.weight', 'transformer.wte.weight')]})")


def check_webtensor_checkpoint():
    if not os.path.exists(BINARY):
        sys.exit(f"{BINARY} is missing: cargo build --release -p webtensor-native")
    with tempfile.TemporaryDirectory() as tmp:
        out = subprocess.run([BINARY, "train", "--model", "gpt", "--config", "cpu", "--iters", "600", "--device", "cpu", "--out", tmp, "--json"],
                             check=True, capture_output=True, text=True).stdout
        report = json.loads(out.strip().splitlines()[-1])
        ckpt = report["checkpoint"]
        prompt, n = "ROMEO:\nI will not th", 60
        text = subprocess.run([BINARY, "sample", "--checkpoint", ckpt, "--prompt", prompt, "--tokens", str(n), "--top-k", "1", "--device", "cpu"],
                              check=True, capture_output=True, text=True).stdout
        text = text[:-1] if text.endswith("\n") else text  # println's newline
        with safe_open(ckpt, "pt") as f:
            meta = f.metadata()
        state = load_file(ckpt)
    c = json.loads(meta["config"])
    vocab = meta["vocab"]
    model = GPT(c)
    missing, unexpected = model.load_state_dict(state, strict=False)
    # The tied pair: webtensor writes both names (as PyTorch's state_dict does); either fills both.
    assert not unexpected and not [k for k in missing if k not in ("lm_head.weight", "transformer.wte.weight")], (missing, unexpected)
    assert torch.equal(model.lm_head.weight, model.transformer.wte.weight)
    model.eval()
    stoi = {ch: i for i, ch in enumerate(vocab)}
    idx = torch.tensor([[stoi[ch] for ch in prompt]])
    with torch.no_grad():
        ids = model.generate_greedy(idx, n)[0].tolist()
    torch_text = "".join(vocab[i] for i in ids)
    print(f"webtensor sample --top-k 1: {text!r}")
    print(f"nanoGPT in PyTorch, greedy: {torch_text!r}")
    assert torch_text == text, "the checkpoint gives different text in PyTorch"
    print(f"webtensor -> PyTorch: same {n} greedy characters from {prompt!r} (train loss {report.get('train_loss')}, val loss {report.get('val_loss')})")


if __name__ == "__main__":
    if "--write-fixture" in sys.argv:
        write_fixture()
    check_webtensor_checkpoint()
