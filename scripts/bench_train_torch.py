"""PyTorch's side of scripts/bench-train-vs-torch.sh: the same MLP training step as
`webtensor bench-train` (784-hidden-hidden-10, ReLU, cross-entropy, Adam lr 1e-3, random data,
5 warm-up steps, then the mean of N synchronized steps), on cpu and cuda when present, printed
beside webtensor's JSON results."""
import json
import sys
import time

import torch
import torch.nn.functional as F


def bench(dev, batch, hidden, steps):
    torch.manual_seed(0)
    model = torch.nn.Sequential(
        torch.nn.Linear(784, hidden), torch.nn.ReLU(), torch.nn.Linear(hidden, hidden), torch.nn.ReLU(),
        torch.nn.Linear(hidden, 10)).to(dev)
    x = torch.randn(batch, 784, device=dev)
    y = (torch.arange(batch, device=dev) * 7) % 10
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)

    def step():
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        return loss

    sync = torch.cuda.synchronize if dev.type == "cuda" else (lambda: None)
    for _ in range(5):
        step()
    sync()
    t0 = time.perf_counter()
    for _ in range(steps):
        loss = step()
    sync()
    return (time.perf_counter() - t0) * 1e3 / steps, loss.item()


def main():
    ours = json.load(open(sys.argv[1]))
    batch, hidden, steps = ours["batch"], ours["hidden"], ours["steps"]
    torch.backends.cuda.matmul.allow_tf32 = False
    ref = {"cpu": bench(torch.device("cpu"), batch, hidden, steps)}
    if torch.cuda.is_available():
        ref["cuda"] = bench(torch.device("cuda"), batch, hidden, steps)
    print(f"# MLP 784-{hidden}-{hidden}-10, batch {batch}, Adam; torch {torch.__version__}, "
          f"{torch.get_num_threads()} cpu threads")
    print(f"{'device':<10} {'ms/step':>10} {'launches':>9} {'memory':>7}   torch ms/step (same kind)   ratio")
    for r in ours["results"]:
        kind = r["device"].split(":")[0]
        peer = ref.get("cpu" if kind == "cpu" else "cuda")
        peer_ms = f"{peer[0]:10.3f}" if peer else "         -"
        ratio = f"{peer[0] / r['ms_per_step']:.2f}x" if peer else "-"
        print(f"{r['device']:<10} {r['ms_per_step']:10.3f} {r['launches_per_step']:9d} "
              f"{'flat' if r['memory_flat'] else 'grew':>7}   {peer_ms:>26}   {ratio}")
    print("ratio = torch time / webtensor time (above 1: webtensor is faster)")


if __name__ == "__main__":
    main()
