// Fused cross-entropy with class indices (op::fused::cross_entropy), one pass per variant
// (PART, from the prelude, numbered as cross_entropy.wgsl's; its thread-per-row PART 0 and 1
// are for software adapters only), f32. PART 2, the forward: a block per row (grid-stride)
// reduces the row's max, then the sum of exp(x - max) and of x, and writes its loss and lse.
// PART 3: a block per row writes the scores' gradient from the saved lse.
// Params: `op::fused::cross_entropy::CrossEntropyParams`.

// NaN-propagating max (fmaxf drops a NaN operand).
__device__ __forceinline__ float max_nan(float m, float v) { return (v > m || v != v) ? v : m; }

// The max of v over the block (every thread gets it); `red` holds WG floats.
__device__ __forceinline__ float block_max(float v, float* red) {
    unsigned t = threadIdx.x;
    red[t] = v;
    __syncthreads();
    for (unsigned s = WG / 2; s > 0; s /= 2) {
        if (t < s) red[t] = max_nan(red[t], red[t + s]);
        __syncthreads();
    }
    float total = red[0];
    __syncthreads();
    return total;
}

// Whether row target tr counts (in range and not the ignored value).
__device__ __forceinline__ bool counts(int tr, const Params& P) {
    bool ignored = P.has_ignore && tr == (int)(unsigned)P.ignore;
    return tr >= 0 && (u64)tr < P.classes && !ignored;
}

extern "C" __global__ void k(const float* __restrict__ x, const int* __restrict__ t, const float* __restrict__ saved,
                             const float* __restrict__ g, float* __restrict__ out, Params P) {
    __shared__ float red[WG];
    u64 c = P.classes, rows = P.rows;
    unsigned l = threadIdx.x;
    float eps = __uint_as_float((unsigned)P.smoothing);
    for (u64 r = blockIdx.x; r < rows; r += gridDim.x) {
        const float* xr = x + P.x_offset + r * c;
        int tr = t[P.t_offset + r];
        bool live = counts(tr, P);
        if (PART == 2) {
            float m = -__int_as_float(0x7f800000);
            for (u64 i = l; i < c; i += WG) m = max_nan(m, xr[i]);
            m = block_max(m, red);
            float s = 0.0f, sum = 0.0f;
            for (u64 i = l; i < c; i += WG) {
                s += expf(xr[i] - m);
                sum += xr[i];
            }
            s = block_sum(s, red);
            sum = block_sum(sum, red);
            if (l == 0) {
                float lse = m + logf(s);
                float loss = 0.0f;
                if (live) {
                    loss = lse - (1.0f - eps) * xr[tr];
                    if (eps > 0.0f) loss -= eps * (sum / (float)c);
                }
                out[r] = loss;
                out[rows + r] = lse;
            }
        } else {
            float lse = saved[rows + r], gr = g[P.g_offset + r];
            for (u64 i = l; i < c; i += WG) {
                float onehot = i == (u64)tr ? 1.0f - eps : 0.0f;
                out[r * c + i] = live ? gr * (expf(xr[i] - lse) - eps / (float)c) - gr * onehot : 0.0f;
            }
        }
    }
}
