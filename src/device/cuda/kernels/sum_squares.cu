// The sum of squares of an f32 tensor (op::fused::sum_squares and sum_squares.wgsl), two
// deterministic stages (PART, from the prelude): PART 0, a block per chunk of chunk_len elements
// writes its partial sum to scratch (a single chunk's straight to out, and there is no PART 1);
// PART 1, one block adds the chunks' partials. `block_sum` is
// in the prelude. Params: `op::fused::sum_squares::SumSquaresParams`.
extern "C" __global__ void k(const float* __restrict__ x, float* __restrict__ out, float* __restrict__ scratch,
                             Params P) {
    __shared__ float red[WG];
    unsigned t = threadIdx.x;
    if (PART == 0) {
        for (u64 c = blockIdx.x; c < P.chunks; c += gridDim.x) {
            u64 end = (c + 1) * P.chunk_len < P.numel ? (c + 1) * P.chunk_len : P.numel;
            float acc = 0.0f;
            for (u64 i = c * P.chunk_len + t; i < end; i += WG) {
                float v = x[P.src_offset + i];
                acc += __fmul_rn(v, v);  // the square rounded, not contracted into the sum
            }
            float total = block_sum(acc, red);
            if (t == 0) (P.chunks == 1 ? out[0] : scratch[c]) = total;
        }
        return;
    }
    if (blockIdx.x > 0) return;
    float acc = 0.0f;
    for (u64 c = t; c < P.chunks; c += WG) acc += scratch[c];
    float total = block_sum(acc, red);
    if (t == 0) out[0] = total;
}
