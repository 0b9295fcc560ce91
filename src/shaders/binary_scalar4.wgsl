// binary_scalar.wgsl over contiguous data whose offset and length are multiples of 4, each
// thread taking VEC4_PER_THREAD vec4s a grid apart (see kernels.rs).
// Params: `op::params::ScalarParams`.
@group(0) @binding(0) var<storage, read> a: array<vec4<S>>;
@group(0) @binding(1) var<storage, read_write> out: array<vec4<D>>;
@group(0) @binding(2) var<uniform> P: Params;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let stride = nwg.x * nwg.y * WG;
    let n = p(P_COUNT);
    let oa = p(P_OFFSET);
    let s = scalar(p(P_BITS));
    for (var i = gid.x + gid.y * nwg.x * WG; i < n; i += stride) {
        let x = a[oa + i];
        out[i] = op4(x, vec4<S>(s));
    }
}
