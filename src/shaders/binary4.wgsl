// Binary family, vectorised: both inputs contiguous with the output's shape, offsets and length
// multiples of 4; the scalar `op` per component. Each thread takes VEC4_PER_THREAD vec4s, a
// grid apart (see kernels.rs).
// Params: `op::params::Binary4Params`.
@group(0) @binding(0) var<storage, read> a: array<vec4<S>>;
@group(0) @binding(1) var<storage, read> b: array<vec4<S>>;
@group(0) @binding(2) var<storage, read_write> out: array<vec4<D>>;
@group(0) @binding(3) var<uniform> P: Params;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let stride = nwg.x * nwg.y * WG;
    let n = p(P_COUNT);
    let oa = p(P_A_OFFSET);
    let ob = p(P_B_OFFSET);
    for (var i = gid.x + gid.y * nwg.x * WG; i < n; i += stride) {
        let x = a[oa + i];
        let y = b[ob + i];
        out[i] = op4(x, y);
    }
}
