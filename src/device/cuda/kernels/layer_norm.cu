// Fused LayerNorm (op::fused::layer_norm), one pass per variant (PART, from the prelude, numbered as
// layer_norm.wgsl's; its thread-per-row PART 0 and 1 are for software adapters only), f32.
// PART 4, the forward: a block per row (grid-stride) reduces its sum, then the sum of squares
// about the mean (the composed formula's steps), and writes the row, its mean and rsqrt(var +
// eps). PART 5: a block per row writes dx from the saved statistics. dw and db in two
// deterministic stages (a thread per column over all rows would leave most of the GPU idle):
// PART 2, block (x: 32 columns, y: chunks of LN_ROWS rows) writes its partial sums of dy * xhat
// and dy to `scratch` ([chunks, n] each); PART 3, a thread per column adds its chunks in order.
// Params: `op::fused::layer_norm::LayerNormParams`.
#define LN_ROWS 64  // op::fused::layer_norm::LN_ROWS

__device__ __forceinline__ float weight(const float* w, const Params& P, u64 i) {
    return P.has_w ? w[P.w_offset + i] : 1.0f;
}

extern "C" __global__ void k(const float* __restrict__ x, const float* __restrict__ w, const float* __restrict__ b,
                             const float* __restrict__ saved, const float* __restrict__ dy, float* __restrict__ out,
                             float* __restrict__ scratch, Params P) {
    __shared__ float red[WG];
    u64 n = P.n, rows = P.rows;
    unsigned t = threadIdx.x;
    if (PART == 4) {
        for (u64 r = blockIdx.x; r < rows; r += gridDim.x) {
            const float* xr = x + P.x_offset + r * n;
            float s = 0.0f;
            for (u64 i = t; i < n; i += WG) s += xr[i];
            float mean = block_sum(s, red) / (float)n;
            float sq = 0.0f;
            for (u64 i = t; i < n; i += WG) {
                float c = xr[i] - mean;
                sq += c * c;
            }
            float rstd = rsqrtf(block_sum(sq, red) / (float)n + __uint_as_float((unsigned)P.eps));
            for (u64 i = t; i < n; i += WG) {
                float y = (xr[i] - mean) * rstd * weight(w, P, i);
                if (P.has_b) y += b[P.b_offset + i];
                out[r * n + i] = y;
            }
            if (t == 0) {
                out[P.mean_at + r] = mean;
                out[P.mean_at + rows + r] = rstd;
            }
        }
    } else if (PART == 5) {
        for (u64 r = blockIdx.x; r < rows; r += gridDim.x) {
            const float* xr = x + P.x_offset + r * n;
            const float* gr = dy + P.dy_offset + r * n;
            float mean = saved[P.mean_at + r], rstd = saved[P.mean_at + rows + r];
            float sg = 0.0f, sgx = 0.0f;
            for (u64 i = t; i < n; i += WG) {
                float g = gr[i] * weight(w, P, i);
                sg += g;
                sgx += g * (xr[i] - mean) * rstd;
            }
            float mg = block_sum(sg, red) / (float)n;
            float mgx = block_sum(sgx, red) / (float)n;
            for (u64 i = t; i < n; i += WG) {
                float xhat = (xr[i] - mean) * rstd;
                out[r * n + i] = rstd * (gr[i] * weight(w, P, i) - mg - xhat * mgx);
            }
        }
    } else if (PART == 2) {
        // Stage one: WG / 32 lanes of 32 columns each walk a chunk's rows (chunks grid-stride
        // over y, past the grid's 65535 limit).
        __shared__ float rb[WG];
        unsigned col = t % 32, lane = t / 32, lanes = WG / 32;
        u64 i = blockIdx.x * 32ull + col;
        for (u64 chunk = blockIdx.y; chunk < P.chunks; chunk += gridDim.y) {
            u64 r0 = chunk * LN_ROWS, r1 = min(r0 + LN_ROWS, rows);
            float dw = 0.0f, db = 0.0f;
            if (i < n) {
                for (u64 r = r0 + lane; r < r1; r += lanes) {
                    float xhat = (x[P.x_offset + r * n + i] - saved[P.mean_at + r]) * saved[P.mean_at + rows + r];
                    float g = dy[P.dy_offset + r * n + i];
                    dw += g * xhat;
                    db += g;
                }
            }
            red[t] = dw;
            rb[t] = db;
            __syncthreads();
            if (lane == 0 && i < n) {
                for (unsigned l = 1; l < lanes; l++) {
                    dw += red[l * 32 + col];
                    db += rb[l * 32 + col];
                }
                scratch[chunk * n + i] = dw;
                scratch[(P.chunks + chunk) * n + i] = db;
            }
            __syncthreads();
        }
    } else {
        // Stage two: a thread per column adds the chunks' partials in order.
        FOR_EACH(i, n) {
            float dw = 0.0f, db = 0.0f;
            for (u64 c = 0; c < P.chunks; c++) {
                dw += scratch[c * n + i];
                db += scratch[(P.chunks + c) * n + i];
            }
            out[rows * n + i] = dw;
            out[rows * n + n + i] = db;
        }
    }
}
