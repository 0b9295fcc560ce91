// Matmul with one thread per output element walking the inner dim (see matmul_naive.wgsl): the
// integer path's program for a short inner dim or a thin output. Params:
// `op::params::MatmulItemsParams`.
extern "C" __global__ void k(const S* __restrict__ a, const S* __restrict__ b, S* __restrict__ c, Params P) {
    u64 m = P.m, n = P.n, k = P.k;
    FOR_EACH(o, P.items) {
        u64 batch = o / (m * n), i = (o / n) % m, j = o % n;
        u64 ai = P.a_offset + batch * P.a_batch_stride + i * P.a_row_stride, bi = P.b_offset + batch * P.b_batch_stride + j * P.b_col_stride;
        A acc = (A)0;
        for (u64 kk = 0; kk < k; kk++) {
            acc += (A)load(a[ai]) * (A)load(b[bi]);
            ai += P.a_col_stride;
            bi += P.b_row_stride;
        }
        c[o] = store((C)acc);
    }
}
