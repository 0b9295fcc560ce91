// index_select / gather. An out-of-range index reads as 0 (a kernel cannot raise an error; the
// op checks indices first where it can). Params: 0 numel, 1 rank, 2 src offset, 3 dim,
// 4..12 output shape, 12..20 src strides, 20 src size along dim, 21 mode (0 select,
// 1 gather), 22 index offset.
extern "C" __global__ void k(const S* __restrict__ src, const I* __restrict__ idx, S* __restrict__ dst, Params P) {
    FOR_EACH(i, P.v[0]) {
        u64 rem = i, off = P.v[2];
        bool ok = true;
        for (int d = (int)P.v[1] - 1; d >= 0; d--) {
            u64 size = P.v[4 + d];
            u64 c = rem % size;
            rem /= size;
            if ((u64)d == P.v[3]) {
                long long id = (long long)idx[P.v[22] + (P.v[21] == 1 ? i : c)];
                ok = ok && id >= 0 && (u64)id < P.v[20];
                c = ok ? (u64)id : 0;
            }
            off += c * P.v[12 + d];
        }
        dst[i] = ok ? src[off] : (S)0;
    }
}
