// Reduce each row of a contiguous [m, k] input; each block folds one chunk of one row, so a long
// row is reduced in several passes ([m, k] -> [m, chunks] -> ... -> [m, 1]).
// Params: `op::params::ReduceParams`.
extern "C" __global__ void k(const S* __restrict__ src, D* __restrict__ dst, Params P) {
    __shared__ A sv[WG];
    __shared__ u64 si[WG];
    __shared__ bool sh[WG];
    u64 m = P.rows, k = P.k, chunk = P.chunk, nchunks = P.chunks;
    unsigned t = threadIdx.x;
    for (u64 g = blockIdx.x; g < m * nchunks; g += gridDim.x) {
        u64 row = g / nchunks, c = g % nchunks;
        A acc = identity();
        u64 idx = 0;
        bool has = false;
        u64 base = P.offset + row * k;
        u64 end = c * chunk + chunk < k ? c * chunk + chunk : k;
        for (u64 j = c * chunk + t; j < end; j += WG) {
            fold(acc, idx, has, load(src[base + j]), j);
        }
        sv[t] = acc;
        si[t] = idx;
        sh[t] = has;
        __syncthreads();
        for (unsigned s = WG / 2; s > 0; s /= 2) {
            if (t < s && sh[t + s]) {
                A o = sv[t + s];
                u64 oi = si[t + s];
                if (!sh[t]) {
                    sv[t] = o;
                    si[t] = oi;
                    sh[t] = true;
                } else if (SELECT) {
                    // Equal values, or two NaNs (NaN != NaN), keep the lower index: the first wins.
                    bool tie = o == sv[t] || (is_nan(o) && is_nan(sv[t]));
                    if (better(o, sv[t]) || (tie && oi < si[t])) {
                        sv[t] = o;
                        si[t] = oi;
                    }
                } else {
                    sv[t] = combine(sv[t], o);
                }
            }
            __syncthreads();
        }
        if (t == 0) {
            dst[row * nchunks + c] = finish(sh[0] ? sv[0] : identity(), si[0]);
        }
        __syncthreads();
    }
}
