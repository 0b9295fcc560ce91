"""NumPy peer for `webtensor bench --device cpu`: the same f32 matmul sizes, copy, add, sum and
softmax over rows (16M elements), median of the same number of runs after a warm-up, so the two
print side by side."""
import time

import numpy as np


def median_time(f, runs):
    f()
    ts = []
    for _ in range(runs):
        t0 = time.perf_counter()
        f()
        ts.append(time.perf_counter() - t0)
    return sorted(ts)[len(ts) // 2]


rng = np.random.default_rng(1)
for n in (256, 512, 1024, 2048):
    a = rng.standard_normal((n, n), dtype=np.float32)
    b = rng.standard_normal((n, n), dtype=np.float32)
    s = median_time(lambda: a @ b, 3 if n >= 2048 else 5)
    print(f"numpy      matmul f32 {n:>5}^3      {2 * n**3 / s / 1e9:>9.2f} GFLOP/s   ({s * 1e3:.2f} ms)")
n = 16 << 20
a = np.ones(n, dtype=np.float32)
b = np.ones(n, dtype=np.float32)
sm = rng.standard_normal((n // 1024, 1024), dtype=np.float32)


def softmax_rows():
    # NumPy has no fused softmax: the usual stable form, as SciPy writes it.
    e = np.exp(sm - sm.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


# The same work figures as `webtensor bench`: bytes read and written.
for name, size, f, work in [
    ("copy f32", f"{n >> 20}M", a.copy, 8 * n),
    ("add f32", f"{n >> 20}M", lambda: a + b, 12 * n),
    ("sum f32", f"{n >> 20}M", a.sum, 4 * n),
    ("softmax rows", f"{n // 1024}x1024", softmax_rows, 8 * n),
]:
    s = median_time(f, 5)
    print(f"numpy      {name:<12} {size:>11} {work / s / 1e9:>9.2f} GB/s      ({s * 1e3:.2f} ms)")
print(f"# numpy {np.__version__}")
