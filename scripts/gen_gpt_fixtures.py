#!/usr/bin/env python3
"""Generates tests/fixtures/gpt.json with PyTorch (CPU): a small GPT written as nanoGPT's
model.py writes it (same modules, names, tying, initialisation rule and forward), its initial
state_dict, the logits, loss and every parameter's gradient for one batch, then 20 training steps
as nanoGPT's train.py takes them (AdamW over decay / no-decay groups, gradient clipping at 1.0,
linear warmup then cosine decay through SequentialLR) with the loss at each step, and greedy
generation from a prompt. The Rust and JS suites load the weights and must match.

Regenerate (needs PyTorch from PyPI; CI does not, the output is committed):
    python3 -m venv /tmp/torchenv && /tmp/torchenv/bin/pip install torch
    /tmp/torchenv/bin/python scripts/gen_gpt_fixtures.py
"""
import json
import math
import os

import torch
import torch.nn as nn
from torch.nn import functional as F

CONFIG = dict(vocab_size=11, block_size=8, n_layer=2, n_head=2, n_embd=8, dropout=0.0, bias=True)


class LayerNorm(nn.Module):
    def __init__(self, ndim, bias):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(ndim))
        self.bias = nn.Parameter(torch.zeros(ndim)) if bias else None

    def forward(self, x):
        return F.layer_norm(x, self.weight.shape, self.weight, self.bias, 1e-5)


class CausalSelfAttention(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.c_attn = nn.Linear(c["n_embd"], 3 * c["n_embd"], bias=c["bias"])
        self.c_proj = nn.Linear(c["n_embd"], c["n_embd"], bias=c["bias"])
        self.resid_dropout = nn.Dropout(c["dropout"])
        self.n_head, self.n_embd = c["n_head"], c["n_embd"]
        # nanoGPT's attention dropout (model.py: dropout_p=self.dropout if self.training else 0).
        self.dropout = c["dropout"]

    def forward(self, x):
        B, T, C = x.size()
        q, k, v = self.c_attn(x).split(self.n_embd, dim=2)
        k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        v = v.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        y = F.scaled_dot_product_attention(q, k, v, attn_mask=None, dropout_p=self.dropout if self.training else 0.0, is_causal=True)
        y = y.transpose(1, 2).contiguous().view(B, T, C)
        return self.resid_dropout(self.c_proj(y))


class MLP(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.c_fc = nn.Linear(c["n_embd"], 4 * c["n_embd"], bias=c["bias"])
        self.gelu = nn.GELU()
        self.c_proj = nn.Linear(4 * c["n_embd"], c["n_embd"], bias=c["bias"])
        self.dropout = nn.Dropout(c["dropout"])

    def forward(self, x):
        return self.dropout(self.c_proj(self.gelu(self.c_fc(x))))


class Block(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.ln_1 = LayerNorm(c["n_embd"], bias=c["bias"])
        self.attn = CausalSelfAttention(c)
        self.ln_2 = LayerNorm(c["n_embd"], bias=c["bias"])
        self.mlp = MLP(c)

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class GPT(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.c = c
        self.transformer = nn.ModuleDict(dict(
            wte=nn.Embedding(c["vocab_size"], c["n_embd"]),
            wpe=nn.Embedding(c["block_size"], c["n_embd"]),
            drop=nn.Dropout(c["dropout"]),
            h=nn.ModuleList([Block(c) for _ in range(c["n_layer"])]),
            ln_f=LayerNorm(c["n_embd"], bias=c["bias"]),
        ))
        self.lm_head = nn.Linear(c["n_embd"], c["vocab_size"], bias=False)
        self.transformer.wte.weight = self.lm_head.weight
        self.apply(self._init_weights)
        for pn, p in self.named_parameters():
            if pn.endswith("c_proj.weight"):
                torch.nn.init.normal_(p, mean=0.0, std=0.02 / math.sqrt(2 * c["n_layer"]))

    def _init_weights(self, module):
        if isinstance(module, nn.Linear):
            torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)
            if module.bias is not None:
                torch.nn.init.zeros_(module.bias)
        elif isinstance(module, nn.Embedding):
            torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)

    def forward(self, idx, targets=None):
        b, t = idx.size()
        pos = torch.arange(0, t, dtype=torch.long, device=idx.device)
        x = self.transformer.drop(self.transformer.wte(idx) + self.transformer.wpe(pos))
        for block in self.transformer.h:
            x = block(x)
        x = self.transformer.ln_f(x)
        logits = self.lm_head(x)
        loss = None if targets is None else F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1), ignore_index=-1)
        return logits, loss

    def configure_optimizers(self, weight_decay, learning_rate, betas):
        params = [p for p in self.parameters() if p.requires_grad]
        decay = [p for p in params if p.dim() >= 2]
        nodecay = [p for p in params if p.dim() < 2]
        groups = [{"params": decay, "weight_decay": weight_decay}, {"params": nodecay, "weight_decay": 0.0}]
        return torch.optim.AdamW(groups, lr=learning_rate, betas=betas)

    @torch.no_grad()
    def generate_greedy(self, idx, n):
        for _ in range(n):
            idx_cond = idx if idx.size(1) <= self.c["block_size"] else idx[:, -self.c["block_size"]:]
            logits, _ = self(idx_cond)
            idx = torch.cat((idx, logits[:, -1, :].argmax(-1, keepdim=True)), dim=1)
        return idx


def flat(t):
    return t.detach().reshape(-1).tolist()


def main():
    torch.manual_seed(1337)
    gen = torch.Generator().manual_seed(7)
    c = CONFIG
    model = GPT(c)
    state = {k: {"shape": list(v.shape), "data": flat(v)} for k, v in model.state_dict().items()}
    idx = torch.randint(0, c["vocab_size"], (2, c["block_size"]), generator=gen)
    targets = torch.randint(0, c["vocab_size"], (2, c["block_size"]), generator=gen)
    targets[1, 3] = -1
    logits, loss = model(idx, targets)
    loss.backward()
    grads = {k: flat(p.grad) for k, p in model.named_parameters()}
    model.zero_grad(set_to_none=True)
    opt = model.configure_optimizers(0.1, 1e-2, (0.9, 0.99))
    warm = torch.optim.lr_scheduler.LinearLR(opt, 0.01, 1.0, 5)
    cos = torch.optim.lr_scheduler.CosineAnnealingLR(opt, 15, 1e-4)
    sched = torch.optim.lr_scheduler.SequentialLR(opt, [warm, cos], [5])
    steps = []
    for _ in range(20):
        x = torch.randint(0, c["vocab_size"], (4, c["block_size"]), generator=gen)
        y = torch.randint(0, c["vocab_size"], (4, c["block_size"]), generator=gen)
        _, l = model(x, y)
        opt.zero_grad(set_to_none=True)
        l.backward()
        norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        sched.step()
        steps.append({"x": flat(x), "y": flat(y), "loss": l.item(), "grad_norm": norm.item(), "lr": opt.param_groups[0]["lr"]})
    model.eval()
    prompt = torch.tensor([[1, 3], [4, 4]])
    greedy = model.generate_greedy(prompt, 10)
    out = {
        "generator": "scripts/gen_gpt_fixtures.py", "torch": torch.__version__, "config": c,
        "keys": list(state), "state_dict": state, "idx": flat(idx), "targets": flat(targets), "shape": list(idx.shape),
        "logits": flat(logits), "loss": loss.item(), "grads": grads,
        "steps": steps, "final_state_dict": {k: flat(v) for k, v in model.state_dict().items()},
        "prompt": flat(prompt), "greedy": flat(greedy),
    }
    path = os.path.join(os.path.dirname(__file__), "..", "tests", "fixtures", "gpt.json")
    with open(path, "w") as f:
        json.dump(out, f)
    print(f"wrote {os.path.normpath(path)}: {sum(p.numel() for p in model.parameters())} parameters, 20 steps, loss {steps[0]['loss']:.4f} -> {steps[-1]['loss']:.4f}")


if __name__ == "__main__":
    main()
