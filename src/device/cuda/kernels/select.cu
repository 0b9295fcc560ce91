// Top-k selection, as select.wgsl (its header explains the two modes): one thread per (row,
// chunk) keeps the chunk's best `keep` positions in a sorted list; a second launch picks each
// row's best among the chunks' candidates. `key` comes from the variant (op::sort).
// Params: `op::params::SelectParams`.
#define MAX_KEEP 32
#define NONE 0xffffffffu

__device__ __forceinline__ bool beats(unsigned ka, unsigned a, unsigned kb, unsigned b, bool desc) {
    if (ka != kb) return desc ? ka > kb : ka < kb;
    return a < b;
}

extern "C" __global__ void k(const S* __restrict__ src, const unsigned* __restrict__ cand, unsigned* __restrict__ out, Params P) {
    u64 m = P.rows, len = P.len, keep = P.keep, nchunks = P.chunks, chunk = P.chunk;
    bool desc = P.descending == 1, merge = P.merge == 1;
    FOR_EACH(t, merge ? m : m * nchunks) {
        u64 row = merge ? t : t / nchunks;
        u64 base = P.offset + row * len;
        u64 start = merge ? 0 : (t % nchunks) * chunk;
        u64 n = merge ? nchunks * keep : (chunk < len - start ? chunk : len - start);
        unsigned kpos[MAX_KEEP], kkey[MAX_KEEP];
        unsigned cnt = 0, wkey = 0, wpos = 0;
        for (u64 j = 0; j < n; j++) {
            unsigned pos = merge ? cand[row * n + j] : (unsigned)(start + j);
            if (pos == NONE) continue;
            unsigned kv = key(src[base + pos]);
            if (cnt == keep && !beats(kv, pos, wkey, wpos, desc)) continue;
            unsigned i = cnt < keep ? cnt : (unsigned)keep - 1;
            while (i > 0 && beats(kv, pos, kkey[i - 1], kpos[i - 1], desc)) {
                kkey[i] = kkey[i - 1];
                kpos[i] = kpos[i - 1];
                i--;
            }
            kkey[i] = kv;
            kpos[i] = pos;
            cnt = cnt + 1 < keep ? cnt + 1 : (unsigned)keep;
            wkey = kkey[cnt - 1];
            wpos = kpos[cnt - 1];
        }
        for (unsigned i = 0; i < keep; i++) out[t * keep + i] = i < cnt ? kpos[i] : NONE;
    }
}
