// Reduce each short row of a contiguous [m, k] input with one thread per row.
// Params: 0 m, 1 k, 2 src offset.
extern "C" __global__ void k(const S* __restrict__ src, D* __restrict__ dst, Params P) {
    FOR_EACH(row, P.v[0]) {
        A acc = identity();
        u64 idx = 0;
        bool has = false;
        u64 base = P.v[2] + row * P.v[1];
        for (u64 j = 0; j < P.v[1]; j++) {
            fold(acc, idx, has, load(src[base + j]), j);
        }
        dst[row] = finish(has ? acc : identity(), idx);
    }
}
