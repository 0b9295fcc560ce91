// Tiled fused attention (op::attention) for rows up to 64 wide, flash-attention style, as
// attention_tiled.wgsl: a block of BR threads takes BR rows of one head, a thread per row
// holding its row and accumulators in registers (arrays of W, loops unrolled), and walks the
// other side's rows in tiles of BC staged in shared memory, which every thread reads at the
// same address at once (a broadcast). PART 0 is the forward (online softmax: the output and
// each query row's log-sum-exp in one pass), PART 1 the query's gradient, PART 2 and 3 the
// key's and the value's (a thread per key row over query tiles); the backward's D_i comes first
// from attention.cu's pass. The prelude gives W (the padded row width) and BC; attention_common.cu's
// helpers and `threefry` are in it too. Params: `op::params::AttentionParams`, `threads` the
// blocks of the pass.
#define BR 64

__device__ __forceinline__ float mask_at(const float* mask, const Params& P, u64 n, u64 i, u64 j) {
    return P.masked ? mask[row_at(P.m, P, n, i) + j * P.m[4]] : 0.0f;
}

// Row `a` of `x`: its first `w` elements, zeros past them.
__device__ __forceinline__ void load_row(const float* x, u64 a, u64 w, float* r) {
#pragma unroll
    for (int c = 0; c < W; c++) r[c] = (u64)c < w ? x[a + c] : 0.0f;
}

// Stages rows r0.. (of `rows`) of head n of x (view xa, width wx) and y (ya, wy) into sa, sb;
// neighbouring threads read neighbouring elements of a row.
__device__ __forceinline__ void stage(const float* x, const u64* xa, u64 wx, const float* y, const u64* ya, u64 wy,
                                      u64 rows, const Params& P, u64 n, u64 r0, float* sa, float* sb) {
    for (int slot = threadIdx.x; slot < BC * W; slot += BR) {
        u64 r = r0 + slot / W;
        u64 c = slot % W;
        float a = 0.0f, b = 0.0f;
        if (r < rows) {
            if (c < wx) a = x[row_at(xa, P, n, r) + c];
            if (c < wy) b = y[row_at(ya, P, n, r) + c];
        }
        sa[slot] = a;
        sb[slot] = b;
    }
}

// Four floats read from shared memory as one 16-byte load.
struct __align__(16) f4 { float x, y, z, w; };

// r . s for a row r in registers and s in shared memory: vector loads and four independent
// sums (one chain of W dependent FMAs leaves the few warps a block of this size allows idle).
__device__ __forceinline__ float dot_row(const float* r, const float* s) {
    const f4* s4 = reinterpret_cast<const f4*>(s);
    float d0 = 0.0f, d1 = 0.0f, d2 = 0.0f, d3 = 0.0f;
#pragma unroll
    for (int c = 0; c < W / 4; c++) {
        const f4 x = s4[c];
        d0 = fmaf(r[4 * c], x.x, d0);
        d1 = fmaf(r[4 * c + 1], x.y, d1);
        d2 = fmaf(r[4 * c + 2], x.z, d2);
        d3 = fmaf(r[4 * c + 3], x.w, d3);
    }
    return (d0 + d1) + (d2 + d3);
}

// acc += w * s for s in shared memory.
__device__ __forceinline__ void axpy_row(float w, const float* s, float* acc) {
    const f4* s4 = reinterpret_cast<const f4*>(s);
#pragma unroll
    for (int c = 0; c < W / 4; c++) {
        const f4 x = s4[c];
        acc[4 * c] = fmaf(w, x.x, acc[4 * c]);
        acc[4 * c + 1] = fmaf(w, x.y, acc[4 * c + 1]);
        acc[4 * c + 2] = fmaf(w, x.z, acc[4 * c + 2]);
        acc[4 * c + 3] = fmaf(w, x.w, acc[4 * c + 3]);
    }
}

// Dropout's multiplier at counter c, the place of (n, i, j) in [heads, L, S]: attention_common.cu's
// `keep` with a 32-bit counter (op::attention checks that it fits).
__device__ __forceinline__ float keep_at(const Params& P, unsigned c) {
    if (!P.dropout) return 1.0f;
    float u = (float)(threefry((unsigned)P.key_lo, (unsigned)P.key_hi, c) >> 8) * (1.0f / 16777216.0f);
    return u >= __uint_as_float((unsigned)P.drop_p) ? __uint_as_float((unsigned)P.drop_scale) : 0.0f;
}

extern "C" __global__ void __launch_bounds__(BR) k(const float* __restrict__ q, const float* __restrict__ kk,
                                                   const float* __restrict__ v, const float* __restrict__ mask,
                                                   const float* __restrict__ saved, const float* __restrict__ dout,
                                                   float* __restrict__ out, Params P) {
    __shared__ __align__(16) float sa[BC * W];
    __shared__ __align__(16) float sb[BC * W];
    const u64 wid = blockIdx.x;
    if (wid >= P.threads) return;
    const u64 t = threadIdx.x;
    const float scale = __uint_as_float((unsigned)P.scale);
    float acc[W];
#pragma unroll
    for (int c = 0; c < W; c++) acc[c] = 0.0f;
    if (PART == 0 || PART == 1) {
        // One thread per query row i over key tiles.
        const unsigned nq = (unsigned)P.l, nk = (unsigned)P.s;
        const unsigned tiles = (nq + BR - 1) / BR, n = (unsigned)wid / tiles, i0 = ((unsigned)wid % tiles) * BR;
        const unsigned i = i0 + (unsigned)t;
        const bool valid = i < nq;
        const unsigned il = valid ? i : nq - 1, r = n * nq + il;
        // Dropout's counter of (i, 0).
        const unsigned c0 = r * nk;
        float qr[W];
        load_row(q, row_at(P.q, P, n, il), P.e, qr);
        float gr[W];
        float lse = 0.0f, dd = 0.0f;
        if (PART == 1) {
            load_row(dout, row_at(P.g, P, n, il), P.ev, gr);
            lse = saved[P.lse_at + r];
            dd = out[P.d_at + r];
        }
        // The running max and sum of exp(x - m) over the unmasked scores so far (l = 0: none).
        float m = 0.0f, l = 0.0f;
        const unsigned wend = P.causal ? min(i0 + BR, nk) : nk;
        const unsigned kend = valid && (PART == 0 || !masked_value(lse)) ? (P.causal ? min(i + 1, nk) : nk) : 0;
        for (unsigned j0 = 0; j0 < wend; j0 += BC) {
            __syncthreads();
            stage(kk, P.k, P.e, v, P.v, P.ev, P.s, P, n, j0, sa, sb);
            __syncthreads();
            const unsigned jn = min((unsigned)BC, kend - min(j0, kend));
            for (unsigned jj = 0; jj < jn; jj++) {
                const unsigned j = j0 + jj;
                const float* kr = sa + jj * W;
                const float* vr = sb + jj * W;
                const float x = dot_row(qr, kr) * scale + mask_at(mask, P, n, i, j);
                if (masked_value(x)) continue;
                if (PART == 0) {
                    if (l == 0.0f) {
                        m = x;
                    } else if (x > m) {
                        const float corr = expf(m - x);
                        l *= corr;
#pragma unroll
                        for (int c = 0; c < W; c++) acc[c] *= corr;
                        m = x;
                    }
                    const float pr = expf(x - m);
                    l += pr;
                    axpy_row(pr * keep_at(P, c0 + j), vr, acc);
                } else {
                    const float pr = expf(fminf(x - lse, 0.0f));
                    axpy_row(pr * (dot_row(gr, vr) * keep_at(P, c0 + j) - dd), kr, acc);
                }
            }
        }
        if (!valid) return;
        if (PART == 0) {
            const float inv = l > 0.0f ? 1.0f / l : 0.0f;
#pragma unroll
            for (int c = 0; c < W; c++)
                if ((u64)c < P.ev) out[row_at(P.o, P, n, il) + c] = acc[c] * inv;
            out[P.lse_at + r] = l > 0.0f ? m + logf(l) : __int_as_float(0xff800000);
        } else {
#pragma unroll
            for (int c = 0; c < W; c++)
                if ((u64)c < P.e) out[row_at(P.dq, P, n, il) + c] = acc[c] * scale;
        }
    } else {
        // The key's (PART 2) or the value's (PART 3) gradient, a thread per key row j over
        // query tiles; causal: only queries i >= j see key j, so the block starts at its first.
        const unsigned nq = (unsigned)P.l, nk = (unsigned)P.s;
        const unsigned tiles = (nk + BR - 1) / BR, n = (unsigned)wid / tiles, j0 = ((unsigned)wid % tiles) * BR;
        const unsigned j = j0 + (unsigned)t;
        const bool valid = j < nk;
        const unsigned jl = valid ? j : nk - 1;
        float kr[W], vr[W];
        load_row(kk, row_at(P.k, P, n, jl), P.e, kr);
        if (PART == 2) load_row(v, row_at(P.v, P, n, jl), P.ev, vr);
        for (unsigned i0 = P.causal ? j0 : 0; i0 < nq; i0 += BC) {
            __syncthreads();
            stage(q, P.q, P.e, dout, P.g, P.ev, nq, P, n, i0, sa, sb);
            __syncthreads();
            const unsigned ni = valid ? min((unsigned)BC, nq - i0) : 0;
            for (unsigned ii = 0; ii < ni; ii++) {
                const unsigned i = i0 + ii;
                if (P.causal && i < j) continue;
                const unsigned row = n * nq + i;
                const float lse = saved[P.lse_at + row];
                if (masked_value(lse)) continue;
                const float* qs = sa + ii * W;
                const float* gs = sb + ii * W;
                const float x = dot_row(kr, qs) * scale + mask_at(mask, P, n, i, j);
                if (masked_value(x)) continue;
                const float pr = expf(fminf(x - lse, 0.0f));
                const float kept = keep_at(P, row * nk + j);
                if (PART == 2) {
                    axpy_row(pr * (dot_row(vr, gs) * kept - out[P.d_at + row]), qs, acc);
                } else {
                    axpy_row(pr * kept, gs, acc);
                }
            }
        }
        if (!valid) return;
        if (PART == 2) {
#pragma unroll
            for (int c = 0; c < W; c++)
                if ((u64)c < P.e) out[row_at(P.dk, P, n, j) + c] = acc[c] * scale;
        } else {
#pragma unroll
            for (int c = 0; c < W; c++)
                if ((u64)c < P.ev) out[row_at(P.dv, P, n, j) + c] = acc[c];
        }
    }
}
