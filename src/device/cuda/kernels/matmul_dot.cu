// Matmul with one block per output element: its threads split the long inner dim and fold in
// shared memory (see matmul_dot.wgsl); the integer path's program for few outputs. Params as
// matmul_naive.cu. Launched with WG threads per block.
extern "C" __global__ void k(const S* __restrict__ a, const S* __restrict__ b, S* __restrict__ c, Params P) {
    __shared__ A part[WG];
    u64 m = P.v[0], n = P.v[1], k = P.v[2];
    unsigned t = threadIdx.x;
    for (u64 o = blockIdx.x; o < P.v[7]; o += gridDim.x) {
        u64 batch = o / (m * n), i = (o / n) % m, j = o % n;
        u64 a0 = P.v[5] + batch * P.v[3] + i * P.v[8], b0 = P.v[6] + batch * P.v[4] + j * P.v[11];
        A acc = (A)0;
        for (u64 kk = t; kk < k; kk += WG) {
            acc += (A)load(a[a0 + kk * P.v[9]]) * (A)load(b[b0 + kk * P.v[10]]);
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
