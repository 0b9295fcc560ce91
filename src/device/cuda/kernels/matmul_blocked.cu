// Register-blocked matmul without shared memory (see matmul_blocked.wgsl): 16x16 threads per
// block, a 128x64 tile of C per block, an 8x4 block per thread. The wgpu backend runs it on
// software adapters; the CUDA integer path keeps the shared-memory tiles, and this kernel is
// compiled with the rest so the key space stays the same on both backends. Params:
// `op::params::MatmulParams`.
extern "C" __global__ void k(const S* __restrict__ a, const S* __restrict__ b, S* __restrict__ c, Params P) {
    u64 m = P.m, n = P.n, k = P.k;
    u64 batch = P.first_batch + blockIdx.z;
    u64 abase = P.a_offset + batch * P.a_batch_stride, bbase = P.b_offset + batch * P.b_batch_stride;
    u64 r0 = blockIdx.y * 128ull + threadIdx.y * 8ull, c0 = blockIdx.x * 64ull + threadIdx.x * 4ull;
    A acc[8][4];
    for (int i = 0; i < 8; i++)
        for (int j = 0; j < 4; j++) acc[i][j] = (A)0;
    for (u64 kk = 0; kk < k; kk++) {
        A bv[4];
        for (int j = 0; j < 4; j++) {
            u64 col = c0 + j < n ? c0 + j : n - 1;
            bv[j] = (A)load(b[bbase + kk * P.b_row_stride + col * P.b_col_stride]);
        }
        for (int i = 0; i < 8; i++) {
            u64 row = r0 + i < m ? r0 + i : m - 1;
            A av = (A)load(a[abase + row * P.a_row_stride + kk * P.a_col_stride]);
            for (int j = 0; j < 4; j++) acc[i][j] += av * bv[j];
        }
    }
    for (int i = 0; i < 8; i++)
        for (int j = 0; j < 4; j++)
            if (r0 + i < m && c0 + j < n) c[(batch * m + r0 + i) * n + c0 + j] = store((C)acc[i][j]);
}
