// clip_grad_norm_'s multi-tensor kernels (op::fused::foreach and foreach.wgsl) over up to five
// f32 tensors, each from its own pointer and offset; chunks of chunk_len elements, tensor t's
// from starts[t], a block each (striding past the grid). PART 0: each chunk's sum of squares to
// scratch (a single chunk's straight to out, and there is no PART 1); PART 1, one block adds the
// chunks' partials in order. PART 2: each element times coef[coef_offset], written flat (tensor
// t after the elements of the ones before it). `block_sum` is in the prelude.
// Params: `op::fused::foreach::ForeachParams`.
extern "C" __global__ void k(const float* __restrict__ x0, const float* __restrict__ x1,
                             const float* __restrict__ x2, const float* __restrict__ x3,
                             const float* __restrict__ x4, const float* __restrict__ coef,
                             float* __restrict__ out, float* __restrict__ scratch, Params P) {
    __shared__ float red[WG];
    const unsigned t0 = threadIdx.x;
    const u64 count = P.count;
    const u64 chunks = P.starts[count];
    if (PART == 1) {
        if (blockIdx.x > 0) return;
        float acc = 0.0f;
        for (u64 c = t0; c < chunks; c += WG) acc += scratch[c];
        float total = block_sum(acc, red);
        if (t0 == 0) out[0] = total;
        return;
    }
    const float* xs[5] = {x0, x1, x2, x3, x4};
    for (u64 c = blockIdx.x; c < chunks; c += gridDim.x) {
        // The chunk's tensor, and the flat output's first element of that tensor.
        u64 t = 0, flat = 0;
        while (t + 1 < count && c >= P.starts[t + 1]) {
            flat += P.numel[t];
            t++;
        }
        const float* x = xs[t] + P.offsets[t];
        const u64 first = (c - P.starts[t]) * P.chunk_len;
        const u64 end = first + P.chunk_len < P.numel[t] ? first + P.chunk_len : P.numel[t];
        if (PART == 2) {
            const float k = coef[P.coef_offset];
            for (u64 j = first + t0; j < end; j += WG) out[flat + j] = __fmul_rn(x[j], k);
            continue;
        }
        float acc = 0.0f;
        for (u64 j = first + t0; j < end; j += WG) {
            float v = x[j];
            acc += __fmul_rn(v, v);  // the square rounded, not contracted into the sum
        }
        float total = block_sum(acc, red);
        if (t0 == 0) (chunks == 1 ? out[0] : scratch[c]) = total;
    }
}
