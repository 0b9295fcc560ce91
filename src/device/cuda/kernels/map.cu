// Map family: dst[strided] = op(src[strided]) for unary ops, casts and copies.
// Params: `op::params::MapParams`.
extern "C" __global__ void k(const S* __restrict__ src, D* __restrict__ dst, Params P) {
    FOR_EACH(i, P.numel) {
        u64 so = P.src_offset, dof = P.dst_offset;
        if (P.fast) {
            so += i;
            dof += i;
        } else {
            u64 rem = i;
            for (int d = (int)P.rank - 1; d >= 0; d--) {
                u64 size = P.shape[d];
                u64 c = rem % size;
                rem /= size;
                so += c * P.src_strides[d];
                dof += c * P.dst_strides[d];
            }
        }
        dst[dof] = op(src[so]);
    }
}
