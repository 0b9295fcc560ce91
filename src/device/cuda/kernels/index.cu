// index_select / gather. An out-of-range index reads as 0 (a kernel cannot raise an error; the
// op checks indices first where it can). Params: `op::params::IndexParams`.
extern "C" __global__ void k(const S* __restrict__ src, const I* __restrict__ idx, S* __restrict__ dst, Params P) {
    FOR_EACH(i, P.numel) {
        u64 rem = i, off = P.src_offset;
        bool ok = true;
        for (int d = (int)P.rank - 1; d >= 0; d--) {
            u64 size = P.shape[d];
            u64 c = rem % size;
            rem /= size;
            if ((u64)d == P.dim) {
                long long id = (long long)idx[P.index_offset + (P.gather == 1 ? i : c)];
                ok = ok && id >= 0 && (u64)id < P.dim_size;
                c = ok ? (u64)id : 0;
            }
            off += c * P.src_strides[d];
        }
        dst[i] = ok ? src[off] : (S)0;
    }
}
