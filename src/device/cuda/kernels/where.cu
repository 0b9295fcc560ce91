// where(c, a, b) with broadcasting. Params: 0 numel, 1 rank, 2 c offset, 3 a offset,
// 4..12 shape, 12..20 c strides, 20..28 a strides, 28..36 b strides, 36 b offset.
extern "C" __global__ void k(const unsigned* __restrict__ c, const S* __restrict__ a, const S* __restrict__ b, S* __restrict__ out, Params P) {
    FOR_EACH(i, P.v[0]) {
        u64 co = P.v[2], ao = P.v[3], bo = P.v[36];
        u64 rem = i;
        for (int d = (int)P.v[1] - 1; d >= 0; d--) {
            u64 size = P.v[4 + d];
            u64 x = rem % size;
            rem /= size;
            co += x * P.v[12 + d];
            ao += x * P.v[20 + d];
            bo += x * P.v[28 + d];
        }
        out[i] = c[co] != 0u ? a[ao] : b[bo];
    }
}
