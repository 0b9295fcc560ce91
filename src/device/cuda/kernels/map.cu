// Map family: dst[strided] = op(src[strided]) for unary ops, casts and copies.
// Params: 0 numel, 1 rank, 2 src offset, 3 dst offset, 4..12 shape, 12..20 src strides,
// 20..28 dst strides, 28 fast path (1 when both sides are contiguous).
extern "C" __global__ void k(const S* __restrict__ src, D* __restrict__ dst, Params P) {
    FOR_EACH(i, P.v[0]) {
        u64 so = P.v[2], dof = P.v[3];
        if (P.v[28]) {
            so += i;
            dof += i;
        } else {
            u64 rem = i;
            for (int d = (int)P.v[1] - 1; d >= 0; d--) {
                u64 size = P.v[4 + d];
                u64 c = rem % size;
                rem /= size;
                so += c * P.v[12 + d];
                dof += c * P.v[20 + d];
            }
        }
        dst[dof] = op(src[so]);
    }
}
