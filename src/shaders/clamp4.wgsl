// clamp of contiguous f32 to [lo, hi] in one pass, each thread taking VEC4_PER_THREAD vec4s a
// grid apart (see kernels.rs): the CPU's rule (`x > lo ? x : lo`, then `y < hi ? y : hi`), a NaN
// x giving NaN, as vector selects; the bounds are never NaN (the caller composes maximum and
// minimum then). Of two equal zeros the CPU takes the second; here the driver may give either
// (Vulkan without SignedZeroInfNanPreserve lets a compiler make the select a max: NVIDIA's
// clamped +0 to [-0, 1] as +0, and IEEE's maxNum leaves it open too; comparing the floats'
// order as integers would pin it, at 35% more time on SwiftShader). The maximum and minimum
// kernels' own rules, composed here before, cost fourteen operations a component on
// SwiftShader: clamp over 1M took 4.8 ms there against `abs`'s 3.5.
// Params: `op::params::Clamp4Params`.
@group(0) @binding(0) var<storage, read> a: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read_write> out: array<vec4<f32>>;
@group(0) @binding(2) var<uniform> P: Params;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let stride = nwg.x * nwg.y * WG;
    let n = p(P_COUNT);
    let oa = p(P_OFFSET);
    let lo = vec4<f32>(bitcast<f32>(p(P_LO_BITS)));
    let hi = vec4<f32>(bitcast<f32>(p(P_HI_BITS)));
    for (var i = gid.x + gid.y * nwg.x * WG; i < n; i += stride) {
        let x = a[oa + i];
        let y = select(lo, x, x > lo);
        let z = select(hi, y, y < hi);
        // NaN from the bits (compilers may assume floats are never NaN); x + lo keeps its payload.
        out[i] = select(z, x + lo, (bitcast<vec4<u32>>(x) & vec4<u32>(0x7fffffffu)) > vec4<u32>(0x7f800000u));
    }
}
