// Dropout (op::fused::dropout and dropout.wgsl): dst[i] = src[i] * m, m = scale where
// sample first + i (a 64-bit counter) of the counter-based generator (Threefry-2x32-20 under key (key_lo, key_hi),
// the top 24 bits of its first word) reaches the threshold, else 0 (a dropped infinity is NaN,
// as PyTorch's). f16 computes in f32 and rounds once. `threefry` is in the prelude.
// Params: `op::fused::dropout::DropoutParams`.
extern "C" __global__ void k(const D* __restrict__ src, D* __restrict__ dst, Params P) {
    unsigned k0 = (unsigned)P.key_lo, k1 = (unsigned)P.key_hi, w1;
    unsigned threshold = (unsigned)P.threshold;
    float scale = __uint_as_float((unsigned)P.scale_bits);
    FOR_EACH(i, P.numel) {
        bool kept = (threefry_at(k0, k1, P.first + i, &w1) >> 8) >= threshold;
        dst[P.dst_offset + i] = store(load(src[P.src_offset + i]) * (kept ? scale : 0.0f));
    }
}
