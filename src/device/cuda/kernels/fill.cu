// n copies of one value, given as the bits of an f32, i32 or u32; or with P.mode = 1 uniform
// samples in [0, 1) of the counter-based generator (op::fill and fill.wgsl: Threefry-2x32-20
// under key (key_lo, key_hi) at counter (first + i, 0), the top 24 bits of its first word).
// Params: `op::params::FillParams`.
__device__ __forceinline__ unsigned rotl32(unsigned x, unsigned r) { return (x << r) | (x >> (32u - r)); }

__device__ __forceinline__ unsigned threefry(unsigned k0, unsigned k1, unsigned c) {
    const unsigned rot[8] = {13u, 15u, 26u, 6u, 17u, 29u, 16u, 24u};
    const unsigned ks[3] = {k0, k1, 0x1BD11BDAu ^ k0 ^ k1};
    unsigned x0 = c + k0, x1 = k1;
#pragma unroll
    for (int r = 0; r < 20; r++) {
        x0 += x1;
        x1 = rotl32(x1, rot[r % 8]) ^ x0;
        if (r % 4 == 3) {
            int s = r / 4 + 1;
            x0 += ks[s % 3];
            x1 += ks[(s + 1) % 3] + (unsigned)s;
        }
    }
    return x0;
}

extern "C" __global__ void k(D* __restrict__ dst, Params P) {
    if (P.mode == 1) {
        unsigned k0 = (unsigned)P.key_lo, k1 = (unsigned)P.key_hi, base = (unsigned)P.first;
        FOR_EACH(i, P.numel) {
            dst[i] = (D)((float)(threefry(k0, k1, base + (unsigned)i) >> 8) * (1.0f / 16777216.0f));
        }
        return;
    }
    D x = value((unsigned)P.bits);
    FOR_EACH(i, P.numel) {
        dst[i] = x;
    }
}
