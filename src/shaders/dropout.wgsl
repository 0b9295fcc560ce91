// Dropout (op::fused::dropout): out[i] = src[i] * m, m = scale where sample first + i (a 64-bit
// counter: first_hi above the low word) of the
// counter-based generator (op::fill: Threefry-2x32-20 under key (key_lo, key_hi), the top 24
// bits of its first word) reaches the threshold (sample >= p, compared as integers), else 0 (a
// dropped infinity is NaN, as PyTorch's); the mask of `rand(shape, seed) >= p`, applied in one
// pass. The backward is this program on the gradient. `threefry` is op::fill::WGSL_THREEFRY, in
// the prelude. Params: `op::fused::dropout::DropoutParams`.
@group(0) @binding(0) var<storage, read> src: array<D>;
@group(0) @binding(1) var<storage, read_write> out: array<D>;
@group(0) @binding(2) var<uniform> P: Params;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = gid.x + gid.y * nwg.x * WG;
    if (i < p(P_NUMEL)) {
        let w = threefry_at(p(P_KEY_LO), p(P_KEY_HI), p(P_FIRST), p(P_FIRST_HI), i);
        let kept = (w.x >> 8u) >= p(P_THRESHOLD);
        let x = src[p(P_SRC_OFFSET) + i];
        out[p(P_DST_OFFSET) + i] = D(f32(x) * select(0.0, bitcast<f32>(p(P_SCALE_BITS)), kept));
    }
}
