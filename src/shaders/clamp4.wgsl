// clamp of contiguous f32 to [lo, hi] in one pass: the maximum and minimum kernels' rules
// composed (`mn(mx(x, lo), hi)`: NaN in, or as a bound, gives NaN, as the two passes it
// replaces did), each thread taking VEC4_PER_THREAD vec4s a grid apart (see kernels.rs).
// Params: 0 vec4 count, 1 offset (in vec4s), 2 lo's bits, 3 hi's bits.
@group(0) @binding(0) var<storage, read> a: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read_write> out: array<vec4<f32>>;
@group(0) @binding(2) var<uniform> P: Params;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let stride = nwg.x * nwg.y * WG;
    let n = p(0u);
    let oa = p(1u);
    let lo = bitcast<f32>(p(2u));
    let hi = bitcast<f32>(p(3u));
    for (var i = gid.x + gid.y * nwg.x * WG; i < n; i += stride) {
        let x = a[oa + i];
        out[i] = vec4<f32>(mn(mx(x.x, lo), hi), mn(mx(x.y, lo), hi), mn(mx(x.z, lo), hi), mn(mx(x.w, lo), hi));
    }
}
