"""PyTorch's side of scripts/bench-cuda-vs-torch.sh: the same cases, timed the same way (one
warm-up, then the median of synchronized runs), printed beside webtensor's JSON results."""
import json
import sys
import time

import torch

assert torch.cuda.is_available(), "PyTorch sees no CUDA device"
torch.backends.cuda.matmul.allow_tf32 = False  # webtensor's default: strict f32
dev = torch.device("cuda:0")
N = 16 << 20


def median_ms(f, runs=10):
    f()
    torch.cuda.synchronize()
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        f()
        torch.cuda.synchronize()
        times.append(time.perf_counter() - t0)
    times.sort()
    return times[len(times) // 2] * 1e3


torch_rates = {}
for n in (1024, 2048, 4096):
    a, b = torch.randn(n, n, device=dev), torch.randn(n, n, device=dev)
    torch_rates[("matmul f32", f"{n}^3")] = 2 * n**3 / median_ms(lambda: a @ b) / 1e6
x, y = torch.ones(N, device=dev), torch.ones(N, device=dev)
torch_rates[("copy f32", "16M")] = 8 * N / median_ms(lambda: x.clone()) / 1e6
torch_rates[("add f32", "16M")] = 12 * N / median_ms(lambda: x + y) / 1e6

print(f"# {torch.cuda.get_device_name(0)}, torch {torch.__version__}, CUDA {torch.version.cuda}")
print(f"{'case':<12} {'size':>8} {'torch':>10} " + " ".join(f"{p.split('/')[-1][:-5]:>16}" for p in sys.argv[1:]))
mine = {}
for path in sys.argv[1:]:
    with open(path) as f:
        for r in json.load(f):
            mine[(path, r["case"], r["size"])] = r["rate"]
for (case, size), rate in torch_rates.items():
    cells = []
    for path in sys.argv[1:]:
        w = mine.get((path, case, size))
        cells.append(f"{w:8.1f} ({w / rate:4.2f}x)" if w else f"{'-':>16}")
    unit = "GFLOP/s" if case.startswith("matmul") else "GB/s"
    print(f"{case:<12} {size:>8} {rate:8.1f} {unit:<7}" + " ".join(f"{c:>16}" for c in cells))
# Elementwise add as a share of the same library's copy bandwidth.
for path in sys.argv[1:]:
    add, copy = mine.get((path, "add f32", "16M")), mine.get((path, "copy f32", "16M"))
    if add and copy:
        print(f"{path.split('/')[-1][:-5]}: add is {add / copy:.2f} of its copy bandwidth")
print(f"torch: add is {torch_rates[('add f32', '16M')] / torch_rates[('copy f32', '16M')]:.2f} of its copy bandwidth")
