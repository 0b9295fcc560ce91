// index_add / scatter_add (the gradients of index_select / gather), as index_add.wgsl: each
// output element sums, in increasing source order, the source elements whose index names it;
// deterministic, and the same sum as the CPU and wgpu backends. Params:
// `op::params::IndexAddParams`.
extern "C" __global__ void k(const S* __restrict__ src, const I* __restrict__ idx, S* __restrict__ dst, Params P) {
    FOR_EACH(o, P.numel) {
        u64 rem = o, soff = P.src_offset, ioff = 0, istride = 1, dim_istride = 0, want = 0;
        u64 dim = P.dim;
        bool inside = true;
        for (int d = (int)P.rank - 1; d >= 0; d--) {
            u64 size = P.shape[d];
            u64 c = rem % size;
            rem /= size;
            u64 ssize = P.src_shape[d];
            if ((u64)d == dim) {
                want = c;
                dim_istride = istride;
            } else {
                inside = inside && c < ssize;
                soff += c * P.src_strides[d];
                ioff += c * istride;
            }
            istride *= ssize;
        }
        A acc = (A)0;
        if (inside) {
            bool gather = P.gather == 1, assign = P.assign == 1;
            u64 step = P.src_strides[dim];
            for (u64 i = 0; i < P.dim_size; i++) {
                long long id = (long long)idx[P.index_offset + (gather ? ioff + i * dim_istride : i)];
                if (id >= 0 && (u64)id == want) acc = assign ? load(src[soff + i * step]) : add(acc, load(src[soff + i * step]));
            }
        }
        dst[o] = store(acc);
    }
}
