// Binary family with broadcasting: out[i] = op(a[strided], b[strided]).
// Params: 0 numel, 1 rank, 2 a offset, 3 b offset, 4..12 shape, 12..20 a strides,
// 20..28 b strides, 28 fast path (1 when a and b are contiguous with the output's shape).
extern "C" __global__ void k(const S* __restrict__ a, const S* __restrict__ b, D* __restrict__ out, Params P) {
    FOR_EACH(i, P.v[0]) {
        u64 ao = P.v[2], bo = P.v[3];
        if (P.v[28]) {
            ao += i;
            bo += i;
        } else {
            u64 rem = i;
            for (int d = (int)P.v[1] - 1; d >= 0; d--) {
                u64 size = P.v[4 + d];
                u64 c = rem % size;
                rem /= size;
                ao += c * P.v[12 + d];
                bo += c * P.v[20 + d];
            }
        }
        out[i] = op(a[ao], b[bo]);
    }
}
