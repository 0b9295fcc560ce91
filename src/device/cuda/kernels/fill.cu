// n copies of one value, given as the bits of an f32, i32 or u32; or with P.mode = 1 uniform
// samples in [0, 1) of the counter-based generator (op::fill and fill.wgsl: Threefry-2x32-20
// under key (key_lo, key_hi) at the 64-bit counter first + i, the top 24 bits of its first word); or
// with P.mode = 2 standard normal samples by Box-Muller from both words (op::fill::normal).
// `threefry` is in the prelude (dropout in attention.cu draws from it too).
// Params: `op::params::FillParams`.
extern "C" __global__ void k(D* __restrict__ dst, Params P) {
    if (P.mode == 2) {
        unsigned k0 = (unsigned)P.key_lo, k1 = (unsigned)P.key_hi;
        FOR_EACH(i, P.numel) {
            unsigned w1;
            unsigned w0 = threefry_at(k0, k1, P.first + i, &w1);
            float u1 = (float)((w0 >> 8) + 1u) * (1.0f / 16777216.0f);
            float u2 = (float)(w1 >> 8) * (1.0f / 16777216.0f);
            dst[i] = (D)(sqrtf(-2.0f * logf(u1)) * cosf(3.14159265358979f * (2.0f * u2 - 1.0f)));
        }
        return;
    }
    if (P.mode == 1) {
        unsigned k0 = (unsigned)P.key_lo, k1 = (unsigned)P.key_hi, w1;
        FOR_EACH(i, P.numel) {
            dst[i] = (D)((float)(threefry_at(k0, k1, P.first + i, &w1) >> 8) * (1.0f / 16777216.0f));
        }
        return;
    }
    D x = value((unsigned)P.bits);
    FOR_EACH(i, P.numel) {
        dst[i] = x;
    }
}
