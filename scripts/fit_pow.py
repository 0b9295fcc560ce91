"""Fits the tables and polynomials of src/op/pow.rs (f32 `pow` as 2^(b log2 a) in f64) and
checks the algorithm, emulated in NumPy f64 operation for operation, against correctly rounded
powf over 7.3M pairs, the hard ones included. Prints the Rust constants to paste into
`pow.rs`'s `consts` module.

    pip install numpy mpmath && python3 scripts/fit_pow.py

log2: x = 2^k z with z's bits in [OFF, OFF + 2^23), 16 subintervals by the top 4 significand
bits of z - OFF, 1/c of each rounded to 24 bits (so z (1/c) - 1 is exact in f64), the one
holding 1 with c = 1; log2(1 + r) = r q(r), q of degree 5. exp2: 32 steps, 2^r = 1 + r e(r) on
|r| <= 1/64, e of degree 2. Both fitted near-minimax by Lawson's algorithm (weighted least
squares), q in relative error."""
import mpmath as mp
import numpy as np

mp.mp.prec = 200
OFF = 0x3F330000
Q_DEGREE, E_DEGREE = 5, 2


def f32_of_bits(b):
    return np.array([b], dtype=np.uint32).view(np.float32)[0].item()


def round_bits(x, bits):
    m, e = np.frexp(x)
    return float(np.ldexp(np.round(m * 2**bits), e - bits))


def bits64(v):
    return int(np.array([v], dtype=np.float64).view(np.uint64)[0])


def lawson(f, a, b, deg, iters=60):
    """Near-minimax polynomial coefficients (lowest first) of `f` on [a, b]."""
    x = np.cos(np.linspace(0, np.pi, 4000)) * (b - a) / 2 + (a + b) / 2
    y = np.array([float(f(mp.mpf(v))) for v in x])
    v = np.vander(x, deg + 1, increasing=True)
    w = np.ones_like(x)
    for _ in range(iters):
        c = np.linalg.lstsq(v * np.sqrt(w)[:, None], y * np.sqrt(w), rcond=None)[0]
        err = np.abs(v @ c - y)
        w = w * err
        w /= w.sum()
    return c


invc, logc, rmin, rmax = [], [], 0.0, 0.0
for i in range(16):
    lo, hi = f32_of_bits(OFF + (i << 19)), f32_of_bits(OFF + ((i + 1) << 19))
    ic = 1.0 if lo <= 1.0 < hi else round_bits(2.0 / (lo + hi), 24)
    invc.append(ic)
    logc.append(float(-mp.log(mp.mpf(ic), 2)))
    rmin, rmax = min(rmin, lo * ic - 1), max(rmax, hi * ic - 1)
q = lawson(lambda r: mp.log(1 + r, 2) / r if r != 0 else 1 / mp.log(2), rmin, rmax, Q_DEGREE)
e = lawson(lambda r: (mp.power(2, r) - 1) / r if r != 0 else mp.log(2), -1 / 64, 1 / 64, E_DEGREE)
exp2 = [(bits64(float(mp.power(2, mp.mpf(j) / 32))) - (j << 47)) % 2**64 for j in range(32)]


def powf_core(a, b):
    """pow.rs's pow_core over arrays (positive finite a), in the same order of operations."""
    x = np.abs(a.astype(np.float32))
    sub = x < np.float32(1.1754944e-38)
    with np.errstate(over="ignore"):
        xs = np.where(sub, x * np.float32(16777216.0), x)
    ix = xs.view(np.uint32).astype(np.int64)
    tmp = (ix - OFF) & 0xFFFFFFFF
    i = (tmp >> 19) & 15
    z = ((ix - (tmp & 0xFF800000)) & 0xFFFFFFFF).astype(np.uint32).view(np.float32).astype(np.float64)
    k = (tmp.astype(np.uint32).view(np.int32) >> 23).astype(np.int64) - np.where(sub, 24, 0)
    r = z * np.array(invc)[i] - 1.0
    y0 = np.array(logc)[i] + k.astype(np.float64)
    r2 = r * r
    qq = (q[0] + q[1] * r) + r2 * ((q[2] + q[3] * r) + r2 * (q[4] + q[5] * r))
    y = np.clip(b.astype(np.float32).astype(np.float64) * (y0 + r * qq), -160.0, 130.0)
    shift = 1.5 * 2**47
    kd = y + shift
    ki = kd.view(np.uint64)
    rr = y - (kd - shift)
    with np.errstate(over="ignore"):
        s = (np.array(exp2, dtype=np.uint64)[(ki & np.uint64(31)).astype(np.int64)] + (ki << np.uint64(47))).view(np.float64)
        p = 1.0 + rr * (e[0] + rr * (e[1] + rr * e[2]))
        return (p * s).astype(np.float32)


def check():
    rng = np.random.default_rng(1)
    n = 2_000_000
    sets = [
        (rng.uniform(0, 1000, n), rng.uniform(-20, 20, n)),
        (np.where(rng.random(n) < 0.5, np.sqrt(2), np.sqrt(0.5)) * (1 + 1e-3 * (rng.random(n) - 0.5)),
         rng.uniform(200, 300, n) * np.where(rng.random(n) < 0.5, 1, -1)),
        (rng.uniform(0.9, 1.1, n), rng.uniform(-300, 300, n)),
        (rng.integers(1, 0x7F800000, n).astype(np.uint32).view(np.float32).astype(np.float64), rng.uniform(-4, 4, n)),
    ]
    for i in range(16):  # each subinterval (k = 0) under exponents that put |y| near 127
        z = (OFF + (i << 19) + rng.integers(0, 1 << 19, 100_000)).astype(np.uint32).view(np.float32).astype(np.float64)
        l2 = np.log2(z)
        keep = np.abs(l2) > 1e-6
        b = rng.uniform(100, 127, keep.sum()) / np.abs(l2[keep]) * np.where(rng.random(keep.sum()) < 0.5, 1, -1)
        sets.append((z[keep], b))
    worst, off, total = 0, 0, 0
    for a, b in sets:
        a32, b32 = a.astype(np.float32), b.astype(np.float32)
        with np.errstate(over="ignore", under="ignore"):
            want = np.power(a32.astype(np.float64), b32.astype(np.float64)).astype(np.float32)
        got = powf_core(a32, b32)
        ok = np.isfinite(want) & (np.abs(want) >= np.float32(1.1754944e-38))
        u = np.abs(got[ok].view(np.int32).astype(np.int64) - want[ok].view(np.int32).astype(np.int64))
        worst, off, total = max(worst, int(u.max())), off + int((u > 0).sum()), total + int(ok.sum())
    print(f"// checked {total} pairs: worst {worst} ulp, {off} ({100 * off / total:.4f}%) off by one")
    assert worst <= 1


def rust(name, values):
    print(f"pub(crate) const {name} = [")
    for v in values:
        print(f"    {v},")
    print("];")


check()
hexu = lambda v: "0x" + "_".join(f"{v:016x}"[i:i + 4] for i in range(0, 16, 4))
rust("LOG2: [[u64; 2]; 16]", [f"[{hexu(bits64(a))}, {hexu(bits64(c))}]" for a, c in zip(invc, logc)])
rust("Q: [u64; 6]", [hexu(bits64(c)) for c in q])
rust("E: [u64; 3]", [hexu(bits64(c)) for c in e])
rust("EXP2: [u64; 32]", [hexu(v) for v in exp2])
