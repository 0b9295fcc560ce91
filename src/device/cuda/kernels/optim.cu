// The fused optimizer update of one tensor, as optim_multi.wgsl and `OptimStep::apply`
// (op/optim.rs), statement for statement: one thread per element reads the parameter, its gradient and the old state and
// writes the new parameter and state. Every variant takes the same pointers (p, g, s0, s1 at
// their element offsets, then the outputs); those a variant does not have are stand-ins that
// are never touched. KIND (from the variant prelude): 0 SGD, 1 SGD with momentum, 2 Adam.
// Params: `op::params::OptimParams`.
#define FIRST 1u
#define DECAY 2u
#define VARIANT 4u

extern "C" __global__ void k(const float* __restrict__ pin, const float* __restrict__ gin,
                             const float* __restrict__ s0in, const float* __restrict__ s1in,
                             float* __restrict__ pout, float* __restrict__ s0out, float* __restrict__ s1out, Params P) {
    const unsigned flags = (unsigned)P.flags;
    float s[7];
    for (int j = 0; j < 7; j++) s[j] = __uint_as_float((unsigned)P.scalars[j]);
    FOR_EACH(i, P.n) {
        float w = pin[i];
        float g = gin[i];
        if (KIND < 2) {
            if (flags & DECAY) g = g + w * s[0];
            if (KIND == 0) {
                pout[i] = w - g * s[3];
                continue;
            }
            float b = (flags & FIRST) ? g : s0in[i] * s[1] + g * s[2];
            float step = (flags & VARIANT) ? g + b * s[1] : b;
            pout[i] = w - step * s[3];
            s0out[i] = b;
            continue;
        }
        if (flags & DECAY) {
            if (flags & VARIANT) w = w * s[0];
            else g = g + w * s[0];
        }
        float m0 = (flags & FIRST) ? 0.0f : s0in[i];
        float v0 = (flags & FIRST) ? 0.0f : s1in[i];
        float m = m0 + (g - m0) * s[1];
        float v = v0 * s[2] + (g * g) * s[3];
        float denom = sqrtf(v) / s[4] + s[5];
        pout[i] = w - (m / denom) * s[6];
        s0out[i] = m;
        s1out[i] = v;
    }
}
