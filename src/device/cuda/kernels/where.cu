// where(c, a, b) with broadcasting. Params: `op::params::WhereParams`.
extern "C" __global__ void k(const unsigned* __restrict__ c, const S* __restrict__ a, const S* __restrict__ b, S* __restrict__ out, Params P) {
    FOR_EACH(i, P.numel) {
        u64 co = P.c_offset, ao = P.a_offset, bo = P.b_offset;
        u64 rem = i;
        for (int d = (int)P.rank - 1; d >= 0; d--) {
            u64 size = P.shape[d];
            u64 x = rem % size;
            rem /= size;
            co += x * P.c_strides[d];
            ao += x * P.a_strides[d];
            bo += x * P.b_strides[d];
        }
        out[i] = c[co] != 0u ? a[ao] : b[bo];
    }
}
