// Fused attention (op::attention), one pass per variant (PART, from the prelude), f32: the
// passes of attention.wgsl, a thread per (row, chunk of CHUNK output columns) looping over the
// other side's rows, so no [heads, L, S] tensor. Forward: PART 0 writes each query row's
// log-sum-exp, PART 1 the output from it. Backward: PART 2 writes D_i = dO_i . O_i, PART 3 the
// query's gradient, PART 4 and 5 the key's and the value's (a thread per key row and chunk).
// Threads of a block are neighbouring rows of one head, so they walk the other side's rows in
// step and its loads are shared through the cache. Each chunk's accumulators stay in registers
// (loops unrolled to CHUNK, guarded by its width). Masked scores are -inf; a row with nothing
// to attend to has log-sum-exp -inf and zero output and gradients. `threefry` (dropout's
// generator) and attention_common.cu's helpers are in the prelude.
// Params: `op::params::AttentionParams`.
#define CHUNK 32

// scale * q_i . k_j + mask_ij for head n.
__device__ __forceinline__ float score(const float* q, const float* k, const float* mask, const Params& P, u64 n,
                                       u64 i, u64 j) {
    const float* qr = q + row_at(P.q, P, n, i);
    const float* kr = k + row_at(P.k, P, n, j);
    float acc = 0.0f;
    for (u64 c = 0; c < P.e; c++) acc = fmaf(qr[c], kr[c], acc);
    float x = acc * __uint_as_float((unsigned)P.scale);
    if (P.masked) x += mask[row_at(P.m, P, n, i) + j * P.m[4]];
    return x;
}

// dO_i . v_j of head n.
__device__ __forceinline__ float dot_grad_value(const float* dout, const float* v, const Params& P, u64 n, u64 i,
                                                u64 j) {
    const float* gr = dout + row_at(P.g, P, n, i);
    const float* vr = v + row_at(P.v, P, n, j);
    float acc = 0.0f;
    for (u64 c = 0; c < P.ev; c++) acc = fmaf(gr[c], vr[c], acc);
    return acc;
}

extern "C" __global__ void k(const float* __restrict__ q, const float* __restrict__ kk, const float* __restrict__ v,
                             const float* __restrict__ mask, const float* __restrict__ saved,
                             const float* __restrict__ dout, float* __restrict__ out, Params P) {
    const float NEG_INF = __int_as_float(0xff800000);
    FOR_EACH(t, P.threads) {
        u64 r = t / P.chunks, c0 = (t % P.chunks) * CHUNK;
        u64 cols = (PART == 3 || PART == 4) ? P.e : P.ev;
        u64 width = min((u64)CHUNK, cols - min(c0, cols));
        float acc[CHUNK];
#pragma unroll
        for (int c = 0; c < CHUNK; c++) acc[c] = 0.0f;
        if (PART == 0) {
            u64 n = r / P.l, i = r % P.l;
            float mx = NEG_INF, sum = 0.0f;
            bool any = false;
            for (u64 j = 0; j < key_end(P, i); j++) {
                float x = score(q, kk, mask, P, n, i, j);
                if (masked_value(x)) continue;
                if (!any || x > mx) {
                    sum = (any ? sum * expf(mx - x) : 0.0f) + 1.0f;
                    mx = x;
                    any = true;
                } else {
                    sum += expf(x - mx);
                }
            }
            out[P.lse_at + r] = any ? mx + logf(sum) : NEG_INF;
        } else if (PART == 1) {
            u64 n = r / P.l, i = r % P.l;
            float lse = out[P.lse_at + r];
            if (!masked_value(lse)) {
                for (u64 j = 0; j < key_end(P, i); j++) {
                    float x = score(q, kk, mask, P, n, i, j);
                    if (masked_value(x)) continue;
                    float w = expf(fminf(x - lse, 0.0f)) * keep(P, n, i, j);
                    const float* vr = v + row_at(P.v, P, n, j) + c0;
#pragma unroll
                    for (int c = 0; c < CHUNK; c++)
                        if (c < width) acc[c] = fmaf(w, vr[c], acc[c]);
                }
            }
#pragma unroll
            for (int c = 0; c < CHUNK; c++)
                if (c < width) out[row_at(P.o, P, n, i) + c0 + c] = acc[c];
        } else if (PART == 2) {
            u64 n = r / P.l, i = r % P.l;
            const float* gr = dout + row_at(P.g, P, n, i);
            float d = 0.0f;
            const float* orow = saved + row_at(P.o, P, n, i);
            for (u64 c = 0; c < P.ev; c++) d = fmaf(gr[c], orow[c], d);
            out[P.d_at + r] = d;
        } else if (PART == 3) {
            u64 n = r / P.l, i = r % P.l;
            float lse = saved[P.lse_at + r], d = out[P.d_at + r];
            if (!masked_value(lse)) {
                for (u64 j = 0; j < key_end(P, i); j++) {
                    float x = score(q, kk, mask, P, n, i, j);
                    if (masked_value(x)) continue;
                    float pr = expf(fminf(x - lse, 0.0f));
                    float ds = pr * (dot_grad_value(dout, v, P, n, i, j) * keep(P, n, i, j) - d);
                    const float* kr = kk + row_at(P.k, P, n, j) + c0;
#pragma unroll
                    for (int c = 0; c < CHUNK; c++)
                        if (c < width) acc[c] = fmaf(ds, kr[c], acc[c]);
                }
            }
            float scale = __uint_as_float((unsigned)P.scale);
#pragma unroll
            for (int c = 0; c < CHUNK; c++)
                if (c < width) out[row_at(P.dq, P, n, i) + c0 + c] = acc[c] * scale;
        } else {
            // The key's (PART 4) or the value's (PART 5) gradient for key row r (key j of head n);
            // causal: only queries i >= j see key j.
            u64 n = r / P.s, j = r % P.s;
            for (u64 i = P.causal ? j : 0; i < P.l; i++) {
                float lse = saved[P.lse_at + n * P.l + i];
                if (masked_value(lse)) continue;
                float x = score(q, kk, mask, P, n, i, j);
                if (masked_value(x)) continue;
                float pr = expf(fminf(x - lse, 0.0f));
                if (PART == 4) {
                    float ds = pr * (dot_grad_value(dout, v, P, n, i, j) * keep(P, n, i, j) - out[P.d_at + n * P.l + i]);
                    const float* qr = q + row_at(P.q, P, n, i) + c0;
#pragma unroll
                    for (int c = 0; c < CHUNK; c++)
                        if (c < width) acc[c] = fmaf(ds, qr[c], acc[c]);
                } else {
                    float w = pr * keep(P, n, i, j);
                    const float* gr = dout + row_at(P.g, P, n, i) + c0;
#pragma unroll
                    for (int c = 0; c < CHUNK; c++)
                        if (c < width) acc[c] = fmaf(w, gr[c], acc[c]);
                }
            }
            if (PART == 4) {
                float scale = __uint_as_float((unsigned)P.scale);
#pragma unroll
                for (int c = 0; c < CHUNK; c++)
                    if (c < width) out[row_at(P.dk, P, n, j) + c0 + c] = acc[c] * scale;
            } else {
#pragma unroll
                for (int c = 0; c < CHUNK; c++)
                    if (c < width) out[row_at(P.dv, P, n, j) + c0 + c] = acc[c];
            }
        }
    }
}
