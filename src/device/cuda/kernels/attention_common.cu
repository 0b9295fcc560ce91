// Helpers of both attention kernels (attention.cu, attention_tiled.cu), in their preludes
// after the parameter struct and `threefry`.

__device__ __forceinline__ bool masked_value(float x) { return x < -3.0e38f; }

// The first element of row r of head n of a view whose (offset, s0, s1, s2) are `at`.
__device__ __forceinline__ u64 row_at(const u64* at, const Params& P, u64 n, u64 r) {
    return at[0] + (n / P.n2) * at[1] + (n % P.n2) * at[2] + r * at[3];
}

// Dropout's multiplier of p_ij: the kept scale, 0 where dropped, 1 without dropout.
__device__ __forceinline__ float keep(const Params& P, u64 n, u64 i, u64 j) {
    if (!P.dropout) return 1.0f;
    unsigned c = (unsigned)((n * P.l + i) * P.s + j);
    float u = (float)(threefry((unsigned)P.key_lo, (unsigned)P.key_hi, c) >> 8) * (1.0f / 16777216.0f);
    return u >= __uint_as_float((unsigned)P.drop_p) ? __uint_as_float((unsigned)P.drop_scale) : 0.0f;
}

// The keys query row i sees: 0..key_end(i).
__device__ __forceinline__ u64 key_end(const Params& P, u64 i) { return P.causal ? min(i + 1, P.s) : P.s; }

