#!/usr/bin/env python3
"""nanoGPT's shakespeare_char recipe (or its CPU variant) in PyTorch on the vendored corpus: the
peer of `webtensor train --model gpt` for quality (the validation loss reached with the same
recipe, model and data) and speed (median ms per step, same thread count). The model is the
nanoGPT-equivalent one of scripts/gen_gpt_fixtures.py; train.py's loop: AdamW over decay /
no-decay groups, clipping at 1.0, get_lr's warmup and cosine, estimate_loss every eval_interval.

    /tmp/torchenv/bin/python scripts/train_gpt_torch.py --config cpu --threads 2 [--iters N] [--json]
"""
import argparse
import gzip
import json
import math
import os
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(__file__))
from gen_gpt_fixtures import GPT  # noqa: E402

RECIPES = {
    "shakespeare-char": dict(n_layer=6, n_head=6, n_embd=384, block_size=256, dropout=0.2, batch_size=64, max_iters=5000,
                             eval_iters=200),
    "cpu": dict(n_layer=4, n_head=4, n_embd=128, block_size=64, dropout=0.0, batch_size=12, max_iters=2000, eval_iters=20),
}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="cpu", choices=list(RECIPES))
    ap.add_argument("--iters", type=int)
    ap.add_argument("--eval-interval", type=int, default=250)
    ap.add_argument("--eval-iters", type=int)
    ap.add_argument("--dropout", type=float, help="the model's dropout in place of the recipe's")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--seed", type=int, default=1337)
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    torch.manual_seed(a.seed)
    r = dict(RECIPES[a.config])
    if a.eval_iters:
        r["eval_iters"] = a.eval_iters
    max_iters = a.iters or r["max_iters"]
    lr, min_lr, warmup, decay_iters = 1e-3, 1e-4, 100, max_iters
    path = os.path.join(os.path.dirname(__file__), "..", "data", "shakespeare", "input.txt.gz")
    text = gzip.open(path, "rt", encoding="ascii").read()
    chars = sorted(set(text))
    stoi = {c: i for i, c in enumerate(chars)}
    data = torch.tensor([stoi[c] for c in text], dtype=torch.long)
    n = int(0.9 * len(data))
    train, val = data[:n], data[n:]
    dev = torch.device(a.device)
    B, T = r["batch_size"], r["block_size"]

    def get_batch(split):
        d = train if split == "train" else val
        ix = torch.randint(len(d) - T, (B,))
        x = torch.stack([d[i:i + T] for i in ix])
        y = torch.stack([d[i + 1:i + 1 + T] for i in ix])
        return x.to(dev), y.to(dev)

    c = dict(vocab_size=len(chars), block_size=T, n_layer=r["n_layer"], n_head=r["n_head"], n_embd=r["n_embd"],
             dropout=r["dropout"] if a.dropout is None else a.dropout, bias=False)
    model = GPT(c).to(dev)
    opt = model.configure_optimizers(0.1, lr, (0.9, 0.99))

    def get_lr(it):
        if it < warmup:
            return lr * (it + 1) / (warmup + 1)
        if it > decay_iters:
            return min_lr
        ratio = (it - warmup) / (decay_iters - warmup)
        return min_lr + 0.5 * (1.0 + math.cos(math.pi * ratio)) * (lr - min_lr)

    @torch.no_grad()
    def estimate_loss():
        model.eval()
        out = {}
        for split in ["train", "val"]:
            losses = torch.zeros(r["eval_iters"])
            for k in range(r["eval_iters"]):
                x, y = get_batch(split)
                losses[k] = model(x, y)[1].item()
            out[split] = losses.mean().item()
        model.train()
        return out

    evals, times = [], []
    t_start = time.time()
    for it in range(max_iters + 1):
        for g in opt.param_groups:
            g["lr"] = get_lr(it)
        if it % a.eval_interval == 0 or it == max_iters:
            l = estimate_loss()
            evals.append({"iter": it, "train_loss": l["train"], "val_loss": l["val"]})
            if not a.json:
                print(f"step {it}: train loss {l['train']:.4f}, val loss {l['val']:.4f}", flush=True)
        if it == max_iters:
            break
        x, y = get_batch("train")
        if it == 1 and dev.type == "cuda":
            # Peak memory of a steady step (the first allocates the optimizer's state).
            torch.cuda.reset_peak_memory_stats()
        t0 = time.time()
        _, loss = model(x, y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        if dev.type == "cuda":
            torch.cuda.synchronize()
        times.append((time.time() - t0) * 1e3)
    times.sort()
    out = {"peer": f"PyTorch {torch.__version__}", "config": a.config, "device": a.device, "threads": a.threads,
           "iters": max_iters, "val_loss": evals[-1]["val_loss"], "train_loss": evals[-1]["train_loss"],
           "ms_per_step": times[len(times) // 2], "seconds": time.time() - t_start, "evals": evals}
    if dev.type == "cuda":
        out["peak_bytes"] = torch.cuda.max_memory_allocated()
    print(json.dumps(out) if a.json else f"val loss {out['val_loss']:.4f} after {max_iters} iterations, median {out['ms_per_step']:.1f} ms/step")


if __name__ == "__main__":
    main()
