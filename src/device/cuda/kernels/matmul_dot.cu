// Matmul with one block per output element: its threads split the long inner dim and fold in
// shared memory (see matmul_dot.wgsl); the integer path's program for few outputs. Params:
// `op::params::MatmulItemsParams`. Launched with WG threads per block.
extern "C" __global__ void k(const S* __restrict__ a, const S* __restrict__ b, S* __restrict__ c, Params P) {
    __shared__ A part[WG];
    u64 m = P.m, n = P.n, k = P.k;
    unsigned t = threadIdx.x;
    for (u64 o = blockIdx.x; o < P.items; o += gridDim.x) {
        u64 batch = o / (m * n), i = (o / n) % m, j = o % n;
        u64 a0 = P.a_offset + batch * P.a_batch_stride + i * P.a_row_stride, b0 = P.b_offset + batch * P.b_batch_stride + j * P.b_col_stride;
        A acc = (A)0;
        for (u64 kk = t; kk < k; kk += WG) {
            acc += (A)load(a[a0 + kk * P.a_col_stride]) * (A)load(b[b0 + kk * P.b_row_stride]);
        }
        part[t] = acc;
        __syncthreads();
        for (unsigned s = WG / 2; s > 0; s >>= 1) {
            if (t < s) part[t] += part[t + s];
            __syncthreads();
        }
        if (t == 0) c[o] = store((C)part[0]);
        __syncthreads();
    }
}
