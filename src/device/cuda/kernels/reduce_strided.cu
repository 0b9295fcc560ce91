// Reduce a strided view ([kept.., reduced..]) with one thread per output (the twin of
// reduce_strided.wgsl): output g is kept index (g / m2, g % m2) at src offset
// off + (g / m2) * rs1 + (g % m2) * rs2, folding the k1 x k2 reduced elements at
// a * es1 + b * es2 in row-major order (arg index a * k2 + b).
// Params: `op::params::StridedReduceParams`.
extern "C" __global__ void k(const S* __restrict__ src, D* __restrict__ dst, Params P) {
    FOR_EACH(g, P.outputs) {
        u64 m2 = P.m2, o = g / m2;
        u64 base = P.offset + o * P.rs1 + (g - o * m2) * P.rs2;
        u64 k1 = P.k1, k2 = P.k2, es1 = P.es1, es2 = P.es2;
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
