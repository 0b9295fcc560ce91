// index_add / scatter_add (the gradients of index_select / gather), as index_add.wgsl: each
// output element sums, in increasing source order, the source elements whose index names it;
// deterministic, and the same sum as the CPU and wgpu backends. Params: 0 numel, 1 rank,
// 2 src offset, 3 dim, 4..12 output shape, 12..20 src strides, 20 src size along dim, 21 mode
// (0 select, 1 gather), 22 index offset, 23..31 src shape, 31 assign (scatter: the last source
// element in that order wins).
extern "C" __global__ void k(const S* __restrict__ src, const I* __restrict__ idx, S* __restrict__ dst, Params P) {
    FOR_EACH(o, P.v[0]) {
        u64 rem = o, soff = P.v[2], ioff = 0, istride = 1, dim_istride = 0, want = 0;
        u64 dim = P.v[3];
        bool inside = true;
        for (int d = (int)P.v[1] - 1; d >= 0; d--) {
            u64 size = P.v[4 + d];
            u64 c = rem % size;
            rem /= size;
            u64 ssize = P.v[23 + d];
            if ((u64)d == dim) {
                want = c;
                dim_istride = istride;
            } else {
                inside = inside && c < ssize;
                soff += c * P.v[12 + d];
                ioff += c * istride;
            }
            istride *= ssize;
        }
        A acc = (A)0;
        if (inside) {
            bool gather = P.v[21] == 1, assign = P.v[31] == 1;
            u64 step = P.v[12 + dim];
            for (u64 i = 0; i < P.v[20]; i++) {
                long long id = (long long)idx[P.v[22] + (gather ? ioff + i * dim_istride : i)];
                if (id >= 0 && (u64)id == want) acc = assign ? load(src[soff + i * step]) : add(acc, load(src[soff + i * step]));
            }
        }
        dst[o] = store(acc);
    }
}
