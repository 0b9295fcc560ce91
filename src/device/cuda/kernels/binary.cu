// Binary family with broadcasting: out[i] = op(a[strided], b[strided]).
// Params: `op::params::BinaryParams`.
extern "C" __global__ void k(const S* __restrict__ a, const S* __restrict__ b, D* __restrict__ out, Params P) {
    FOR_EACH(i, P.numel) {
        u64 ao = P.a_offset, bo = P.b_offset;
        if (P.mode) {
            ao += i;
            bo += i;
        } else {
            u64 rem = i;
            for (int d = (int)P.rank - 1; d >= 0; d--) {
                u64 size = P.shape[d];
                u64 c = rem % size;
                rem /= size;
                ao += c * P.a_strides[d];
                bo += c * P.b_strides[d];
            }
        }
        out[i] = op(a[ao], b[bo]);
    }
}
