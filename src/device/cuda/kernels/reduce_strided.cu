// Reduce a strided view ([kept.., reduced..]) with one thread per output (the twin of
// reduce_strided.wgsl): output g is kept index (g / m2, g % m2) at src offset
// off + (g / m2) * rs1 + (g % m2) * rs2, folding the k1 x k2 reduced elements at
// a * es1 + b * es2 in row-major order (arg index a * k2 + b).
// Params: 0 m, 1 off, 2 m2, 3 rs1, 4 rs2, 5 k1, 6 k2, 7 es1, 8 es2.
extern "C" __global__ void k(const S* __restrict__ src, D* __restrict__ dst, Params P) {
    FOR_EACH(g, P.v[0]) {
        u64 m2 = P.v[2], o = g / m2;
        u64 base = P.v[1] + o * P.v[3] + (g - o * m2) * P.v[4];
        u64 k1 = P.v[5], k2 = P.v[6], es1 = P.v[7], es2 = P.v[8];
        A acc = identity();
        u64 idx = 0;
        bool has = false;
        for (u64 a = 0; a < k1; a++) {
            for (u64 b = 0; b < k2; b++) {
                fold(acc, idx, has, load(src[base + a * es1 + b * es2]), a * k2 + b);
            }
        }
        dst[g] = finish(has ? acc : identity(), idx);
    }
}
