// Fill: out[i] = value, or with mode 1 a uniform sample in [0, 1) of the counter-based
// generator (op::fill: Threefry-2x32-20 under key (key_lo, key_hi) at the 64-bit counter
// (first_hi, first) + i, the top 24 bits of its first word; `threefry_at` is
// op::fill::WGSL_THREEFRY, in the prelude), or
// with mode 2 a standard normal sample by Box-Muller from both words (op::fill::normal; log and
// cos by the accurate helpers of op::wgsl_math, in the prelude).
// Params: `op::params::FillParams`.
@group(0) @binding(0) var<storage, read_write> out: array<D>;
@group(0) @binding(1) var<uniform> P: Params;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = gid.x + gid.y * nwg.x * WG;
    if (i < p(P_NUMEL)) {
        if (p(P_MODE) == 2u) {
            let w = threefry_at(p(P_KEY_LO), p(P_KEY_HI), p(P_FIRST), p(P_FIRST_HI), i);
            let u1 = f32((w.x >> 8u) + 1u) * (1.0 / 16777216.0);
            let u2 = f32(w.y >> 8u) * (1.0 / 16777216.0);
            out[i] = D(sqrt(-2.0 * log_pos(u1)) * sin_acc(3.14159265358979 * (2.0 * u2 - 1.0), true));
        } else if (p(P_MODE) == 1u) {
            let w = threefry_at(p(P_KEY_LO), p(P_KEY_HI), p(P_FIRST), p(P_FIRST_HI), i);
            out[i] = D(f32(w.x >> 8u) * (1.0 / 16777216.0));
        } else {
            out[i] = value(p(P_BITS));
        }
    }
}
