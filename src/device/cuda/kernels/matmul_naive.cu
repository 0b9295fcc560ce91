// Matmul with one thread per output element walking the inner dim (see matmul_naive.wgsl): the
// integer path's program for a short inner dim or a thin output. Params as matmul.cu, but 7 is
// the total number of outputs (every batch in one launch).
extern "C" __global__ void k(const S* __restrict__ a, const S* __restrict__ b, S* __restrict__ c, Params P) {
    u64 m = P.v[0], n = P.v[1], k = P.v[2];
    FOR_EACH(o, P.v[7]) {
        u64 batch = o / (m * n), i = (o / n) % m, j = o % n;
        u64 ai = P.v[5] + batch * P.v[3] + i * P.v[8], bi = P.v[6] + batch * P.v[4] + j * P.v[11];
        A acc = (A)0;
        for (u64 kk = 0; kk < k; kk++) {
            acc += (A)load(a[ai]) * (A)load(b[bi]);
            ai += P.v[9];
            bi += P.v[10];
        }
        c[o] = store((C)acc);
    }
}
