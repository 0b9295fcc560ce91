// The least and greatest value of an int or unsigned index (op::fused::index_range and
// index_range.wgsl), skipping the values equal to `ignore` when ignore_on, in two deterministic
// stages: PART 0, a block per chunk writes its pair to scratch (a single chunk's, fixed up,
// straight to out, and there is no PART 1); PART 1, one block folds the pairs. Where nothing
// was counted the pair is written as (0, 0). Params: `op::fused::index_range::IndexRangeParams`.
#define SIGNED ((D)(-1) < (D)0)

// The least of every thread's `lo` and the greatest `hi`, into *lo and *hi of every thread.
__device__ __forceinline__ void block_range(D* lo, D* hi, D* lows, D* highs) {
    unsigned t = threadIdx.x;
    lows[t] = *lo;
    highs[t] = *hi;
    __syncthreads();
    for (unsigned s = WG / 2; s > 0; s /= 2) {
        if (t < s) {
            lows[t] = min(lows[t], lows[t + s]);
            highs[t] = max(highs[t], highs[t + s]);
        }
        __syncthreads();
    }
    *lo = lows[0];
    *hi = highs[0];
    __syncthreads();
}

extern "C" __global__ void k(const D* __restrict__ src, D* __restrict__ out, D* __restrict__ scratch, Params P) {
    __shared__ D lows[WG];
    __shared__ D highs[WG];
    const unsigned t = threadIdx.x;
    const D least = SIGNED ? (D)0x80000000u : (D)0;
    const D greatest = SIGNED ? (D)0x7fffffff : (D)0xffffffffu;
    if (PART == 1) {
        if (blockIdx.x > 0) return;
        D lo = greatest, hi = least;
        for (u64 c = t; c < P.chunks; c += WG) {
            lo = min(lo, scratch[2 * c]);
            hi = max(hi, scratch[2 * c + 1]);
        }
        block_range(&lo, &hi, lows, highs);
        if (t == 0) {
            out[0] = lo > hi ? (D)0 : lo;
            out[1] = lo > hi ? (D)0 : hi;
        }
        return;
    }
    const D ignore = (D)(unsigned)P.ignore;
    for (u64 c = blockIdx.x; c < P.chunks; c += gridDim.x) {
        u64 end = (c + 1) * P.chunk_len < P.numel ? (c + 1) * P.chunk_len : P.numel;
        D lo = greatest, hi = least;
        for (u64 i = c * P.chunk_len + t; i < end; i += WG) {
            D v = src[P.src_offset + i];
            if (!P.ignore_on || v != ignore) {
                lo = min(lo, v);
                hi = max(hi, v);
            }
        }
        block_range(&lo, &hi, lows, highs);
        if (t == 0 && P.chunks == 1) {
            out[0] = lo > hi ? (D)0 : lo;
            out[1] = lo > hi ? (D)0 : hi;
        } else if (t == 0) {
            scratch[2 * c] = lo;
            scratch[2 * c + 1] = hi;
        }
    }
}
