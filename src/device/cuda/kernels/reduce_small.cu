// Reduce each short row of a contiguous [m, k] input with one thread per row.
// Params: `op::params::ReduceSmallParams`.
extern "C" __global__ void k(const S* __restrict__ src, D* __restrict__ dst, Params P) {
    FOR_EACH(row, P.rows) {
        A acc = identity();
        u64 idx = 0;
        bool has = false;
        u64 base = P.offset + row * P.k;
        for (u64 j = 0; j < P.k; j++) {
            fold(acc, idx, has, load(src[base + j]), j);
        }
        dst[row] = finish(has ? acc : identity(), idx);
    }
}
