#!/usr/bin/env python3
"""Generates tests/fixtures/train.json with PyTorch (CPU): losses with their gradients for
every reduction and option; layers (layer/group/batch norm, embedding) with their gradients;
BatchNorm's running statistics; and 200-step training runs (fixed initial weights and data) of a
small MLP with SGD+momentum, Adam and AdamW, and of a token model (Embedding, BatchNorm1d,
GELU, LayerNorm) with Adam, recording the loss at every step. The Rust and JS suites load the
same weights and must reproduce every loss within 1e-4 relative.

Regenerate (needs PyTorch from PyPI; CI does not, the output is committed):
    python3 -m venv /tmp/torchenv && /tmp/torchenv/bin/pip install torch
    /tmp/torchenv/bin/python scripts/gen_train_fixtures.py
"""
import json
import os

import torch
import torch.nn.functional as F

gen = torch.Generator().manual_seed(99)


def flat(t):
    return t.detach().reshape(-1).tolist()


def loss_cases():
    out = []
    logits = torch.randn(6, 5, generator=gen)
    target = torch.tensor([0, 4, 2, 2, 1, 3], dtype=torch.int64)
    pred = torch.randn(3, 4, generator=gen)
    goal = torch.randn(3, 4, generator=gen)
    prob = torch.rand(3, 4, generator=gen)

    grads_gen = [gen]  # the generator of the output gradients (the new cases switch it)

    def case(name, fn, inputs, **args):
        leaves = [t.clone().requires_grad_(True) if t.is_floating_point() else t for t in inputs]
        y = fn(*leaves)
        g = torch.randn(y.shape, generator=grads_gen[0]) if y.dim() > 0 else torch.tensor(1.0)
        y.backward(g)
        out.append({
            "name": name, "args": args,
            "inputs": [{"shape": list(t.shape), "data": flat(t), "dtype": "f32" if t.is_floating_point() else "i32"} for t in inputs],
            "out_shape": list(y.shape), "out": flat(y), "out_grad": flat(g),
            "grads": [flat(l.grad) if l.is_floating_point() else None for l in leaves],
        })

    for red in ["mean", "sum", "none"]:
        case(f"cross_entropy_{red}", lambda x, t: F.cross_entropy(x, t, reduction=red), [logits, target], loss="cross_entropy", reduction=red)
        case(f"cross_entropy_ignore_{red}", lambda x, t: F.cross_entropy(x, t, reduction=red, ignore_index=2), [logits, target], loss="cross_entropy", reduction=red, ignore_index=2)
        case(f"cross_entropy_smooth_{red}", lambda x, t: F.cross_entropy(x, t, reduction=red, label_smoothing=0.1), [logits, target], loss="cross_entropy", reduction=red, label_smoothing=0.1)
        case(f"nll_loss_{red}", lambda x, t: F.nll_loss(torch.log_softmax(x, 1), t, reduction=red), [logits, target], loss="nll_loss_of_log_softmax", reduction=red)
        case(f"mse_loss_{red}", lambda a, b: F.mse_loss(a, b, reduction=red), [pred, goal], loss="mse_loss", reduction=red)
        case(f"l1_loss_{red}", lambda a, b: F.l1_loss(a, b, reduction=red), [pred, goal], loss="l1_loss", reduction=red)
        case(f"bce_with_logits_{red}", lambda a, b: F.binary_cross_entropy_with_logits(a, b, reduction=red), [pred, prob], loss="binary_cross_entropy_with_logits", reduction=red)
    case("cross_entropy_smooth_ignore_mean", lambda x, t: F.cross_entropy(x, t, ignore_index=4, label_smoothing=0.2), [logits, target], loss="cross_entropy", reduction="mean", ignore_index=4, label_smoothing=0.2)
    case("cross_entropy_unbatched", lambda x, t: F.cross_entropy(x, t), [logits[0], target[0]], loss="cross_entropy", reduction="mean")
    # Issue 41's cases, from a generator of their own so the data above stays as it was:
    # PyTorch's default ignore_index (-100), [N, C, d] inputs, class-probability targets.
    g2 = torch.Generator().manual_seed(41)
    grads_gen[0] = g2
    ignored = torch.tensor([0, -100, 2, 4, -100, 3], dtype=torch.int64)
    scores3 = torch.randn(2, 5, 3, generator=g2)
    target3 = torch.tensor([[0, 4, -100], [2, 1, 3]], dtype=torch.int64)
    probs = torch.softmax(torch.randn(4, 5, generator=g2), 1)
    scores = torch.randn(4, 5, generator=g2)
    probs3 = torch.softmax(torch.randn(2, 5, 3, generator=g2), 1)
    for red in ["mean", "sum", "none"]:
        case(f"cross_entropy_default_ignore_{red}", lambda x, t: F.cross_entropy(x, t, reduction=red), [logits, ignored], loss="cross_entropy", reduction=red)
        case(f"cross_entropy_kd_{red}", lambda x, t: F.cross_entropy(x, t, reduction=red), [scores3, target3], loss="cross_entropy", reduction=red)
        case(f"nll_loss_kd_{red}", lambda x, t: F.nll_loss(torch.log_softmax(x, 1), t, reduction=red), [scores3, target3], loss="nll_loss_of_log_softmax", reduction=red)
        case(f"cross_entropy_probs_{red}", lambda x, p: F.cross_entropy(x, p, reduction=red), [scores, probs], loss="cross_entropy", reduction=red)
    case("cross_entropy_probs_smooth_mean", lambda x, p: F.cross_entropy(x, p, label_smoothing=0.1), [scores, probs], loss="cross_entropy", reduction="mean", label_smoothing=0.1)
    case("cross_entropy_probs_kd_mean", lambda x, p: F.cross_entropy(x, p), [scores3, probs3], loss="cross_entropy", reduction="mean")
    case("cross_entropy_kd_smooth_mean", lambda x, t: F.cross_entropy(x, t, label_smoothing=0.2), [scores3, target3], loss="cross_entropy", reduction="mean", label_smoothing=0.2)
    case("cross_entropy_probs_unbatched", lambda x, p: F.cross_entropy(x, p), [scores[0], probs[0]], loss="cross_entropy", reduction="mean")
    return out


def mlp_run(opt_name, steps=200):
    torch.manual_seed(7)
    model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 4))
    x = torch.randn(32, 8, generator=gen)
    y = torch.randint(0, 4, (32,), generator=gen)
    state = {k: {"shape": list(v.shape), "data": flat(v)} for k, v in model.state_dict().items()}
    if opt_name == "sgd":
        opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
        hyper = {"lr": 0.1, "momentum": 0.9}
    elif opt_name == "sgd_nesterov_wd":
        opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, nesterov=True, weight_decay=1e-3)
        hyper = {"lr": 0.05, "momentum": 0.9, "nesterov": True, "weight_decay": 1e-3}
    elif opt_name == "adam":
        opt = torch.optim.Adam(model.parameters(), lr=5e-3)
        hyper = {"lr": 5e-3}
    else:
        # lr 5e-3 (not 1e-2) for Adam(W): at 1e-2 the loss falls to ~0.01 by step 180, where f32
        # summation-order noise alone (GPU kernels sum in f32, PyTorch's CPU kernels otherwise)
        # reaches 1e-4 relative; the comparison is meant to catch algorithmic differences.
        opt = torch.optim.AdamW(model.parameters(), lr=5e-3, weight_decay=0.05)
        hyper = {"lr": 5e-3, "weight_decay": 0.05}
    losses = []
    for _ in range(steps):
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return {
        "optimizer": opt_name, "hyper": hyper, "state_dict": state,
        "x": {"shape": list(x.shape), "data": flat(x)}, "y": y.tolist(), "losses": losses,
        "final_state_dict": {k: flat(v) for k, v in model.state_dict().items()},
    }


def tensor(t):
    return {"shape": list(t.shape), "data": flat(t), "dtype": "f32" if t.is_floating_point() else "i32"}


def layer_cases():
    """Functional layers and modules: output and every input's gradient for a random
    upstream gradient; BatchNorm also its running statistics after training steps."""
    out = []

    def case(name, fn, inputs, **args):
        leaves = [t.clone().requires_grad_(True) if t.is_floating_point() else t for t in inputs]
        y = fn(*leaves)
        g = torch.randn(y.shape, generator=gen)
        y.backward(g)
        out.append({
            "name": name, "args": args, "inputs": [tensor(t) for t in inputs],
            "out_shape": list(y.shape), "out": flat(y), "out_grad": flat(g),
            "grads": [flat(l.grad) if l.is_floating_point() and l.grad is not None else None for l in leaves],
        })

    x2 = torch.randn(4, 6, generator=gen) * 3 + 1
    x3 = torch.randn(2, 3, 4, generator=gen)
    w6, b6 = torch.randn(6, generator=gen), torch.randn(6, generator=gen)
    w34, b34 = torch.randn(3, 4, generator=gen), torch.randn(3, 4, generator=gen)
    case("layer_norm_affine", lambda x, w, b: F.layer_norm(x, [6], w, b), [x2, w6, b6], op="layer_norm", shape=[6], eps=1e-5)
    case("layer_norm_2d_shape", lambda x, w, b: F.layer_norm(x, [3, 4], w, b, eps=1e-3), [x3, w34, b34], op="layer_norm", shape=[3, 4], eps=1e-3)
    case("layer_norm_plain", lambda x: F.layer_norm(x, [4]), [x3], op="layer_norm", shape=[4], eps=1e-5)
    xg = torch.randn(2, 6, 5, generator=gen)
    case("group_norm", lambda x, w, b: F.group_norm(x, 3, w, b), [xg, w6, b6], op="group_norm", groups=3, eps=1e-5)
    xb = torch.randn(8, 6, generator=gen) * 2 - 1
    case("batch_norm_train_2d", lambda x, w, b: F.batch_norm(x, None, None, w, b, training=True), [xb, w6, b6], op="batch_norm", training=True, eps=1e-5)
    case("batch_norm_train_3d", lambda x, w, b: F.batch_norm(x, None, None, w, b, training=True), [xg, w6, b6], op="batch_norm", training=True, eps=1e-5)
    rm, rv = torch.randn(6, generator=gen), torch.rand(6, generator=gen) + 0.5
    case("batch_norm_eval", lambda x, w, b: F.batch_norm(x, rm, rv, w, b, training=False), [xg, w6, b6], op="batch_norm", training=False, eps=1e-5, running_mean=flat(rm), running_var=flat(rv))
    weight = torch.randn(10, 4, generator=gen)
    idx = torch.tensor([[1, 2, 1], [0, 9, 2]])
    case("embedding", lambda i, w: F.embedding(i, w), [idx, weight], op="embedding")
    case("embedding_padding", lambda i, w: F.embedding(i, w, padding_idx=2), [idx, weight], op="embedding", padding_idx=2)
    return out


def batch_norm_running():
    """BatchNorm1d's running statistics over three training steps, for momentum 0.1 and None,
    then its output in eval mode."""
    out = []
    for momentum in [0.1, None]:
        bn = torch.nn.BatchNorm1d(5, momentum=momentum)
        xs = [torch.randn(7, 5, generator=gen) * (i + 1) + i for i in range(3)]
        for x in xs:
            bn(x)
        bn.eval()
        probe = torch.randn(4, 5, generator=gen)
        out.append({
            "momentum": momentum, "inputs": [tensor(x) for x in xs], "probe": tensor(probe),
            "eval_out": flat(bn(probe)),
            "state_dict": {k: flat(v) for k, v in bn.state_dict().items()},
        })
    return out


class TokenNet(torch.nn.Module):
    """Embedding -> mean over the sequence -> Linear (no bias) -> BatchNorm1d -> GELU ->
    LayerNorm -> Linear. Every parameter has a nonzero gradient: a bias (or LayerNorm shift)
    just before BatchNorm would get none in exact arithmetic, and Adam would turn its rounding
    noise into steps of size lr, which no two implementations share."""

    def __init__(self):
        super().__init__()
        self.emb = torch.nn.Embedding(20, 8, padding_idx=0)
        self.fc1 = torch.nn.Linear(8, 16, bias=False)
        self.bn = torch.nn.BatchNorm1d(16)
        self.norm = torch.nn.LayerNorm(16)
        self.fc2 = torch.nn.Linear(16, 4)

    def forward(self, tokens):
        h = self.bn(self.fc1(self.emb(tokens).mean(1)))
        return self.fc2(self.norm(F.gelu(h)))


def token_run(steps=200):
    torch.manual_seed(11)
    model = TokenNet()
    tokens = torch.randint(0, 20, (32, 5), generator=gen)
    y = torch.randint(0, 4, (32,), generator=gen)
    state = {k: tensor(v) for k, v in model.state_dict().items()}
    opt = torch.optim.Adam(model.parameters(), lr=5e-3)
    losses = []
    for _ in range(steps):
        opt.zero_grad()
        loss = F.cross_entropy(model(tokens), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    model.eval()
    return {
        "optimizer": "adam", "hyper": {"lr": 5e-3}, "state_dict": state, "tokens": tensor(tokens),
        "y": y.tolist(), "losses": losses, "eval_out": flat(model(tokens)),
        "final_state_dict": {k: flat(v) for k, v in model.state_dict().items()},
    }


def main():
    out = {
        "generator": "scripts/gen_train_fixtures.py", "torch": torch.__version__,
        "losses": loss_cases(),
        "mlp": [mlp_run(o) for o in ["sgd", "sgd_nesterov_wd", "adam", "adamw"]],
        "layers": layer_cases(),
        "batch_norm_running": batch_norm_running(),
        "token_net": token_run(),
    }
    path = os.path.join(os.path.dirname(__file__), "..", "tests", "fixtures", "train.json")
    with open(path, "w") as f:
        json.dump(out, f)
        f.write("\n")
    print(f"wrote {len(out['losses'])} loss cases, {len(out['layers'])} layer cases and "
          f"{len(out['mlp']) + 1} training runs to {os.path.normpath(path)}")


if __name__ == "__main__":
    main()
