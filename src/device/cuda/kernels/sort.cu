// One step of the stable bitonic argsort, as sort.wgsl: rows of a contiguous [m, len] source,
// an index buffer of [m, np] (np a power of two), one launch per network step; positions past
// len are padding and sort last, equal keys order by position. `key` comes from the variant
// (op::sort). Params: `op::params::SortParams`.
__device__ __forceinline__ bool before(const S* src, u64 base, u64 len, bool desc, unsigned a, unsigned b) {
    if (a >= len) return false;
    if (b >= len) return true;
    unsigned ka = key(src[base + a]), kb = key(src[base + b]);
    if (ka != kb) return desc ? ka > kb : ka < kb;
    return a < b;
}

extern "C" __global__ void k(const S* __restrict__ src, unsigned* __restrict__ idx, Params P) {
    u64 m = P.rows, len = P.len, np = P.np, kk = P.kk, j = P.j;
    bool desc = P.descending == 1;
    if (kk == 0) {
        FOR_EACH(t, m * np) idx[t] = (unsigned)(t % np);
        return;
    }
    u64 half = np / 2;
    FOR_EACH(t, m * half) {
        u64 row = t / half, w = t % half;
        u64 i = 2 * j * (w / j) + w % j;
        u64 at = row * np + i;
        unsigned a = idx[at], b = idx[at + j];
        u64 base = P.offset + row * len;
        bool swap = (i & kk) == 0 ? before(src, base, len, desc, b, a) : before(src, base, len, desc, a, b);
        if (swap) {
            idx[at] = b;
            idx[at + j] = a;
        }
    }
}
