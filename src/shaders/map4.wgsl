// Map family, vectorised: contiguous input and output, offsets and length multiples of 4.
// Each thread moves VEC4_PER_THREAD vec4s a grid apart (see kernels.rs; 16-byte loads are far
// cheaper than four 4-byte ones on software adapters and help bandwidth on GPUs) and applies the
// scalar `op` per component.
// Params: `op::params::Map4Params`.
@group(0) @binding(0) var<storage, read> src: array<vec4<S>>;
@group(0) @binding(1) var<storage, read_write> dst: array<vec4<D>>;
@group(0) @binding(2) var<uniform> P: Params;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let stride = nwg.x * nwg.y * WG;
    let n = p(P_COUNT);
    let os = p(P_SRC_OFFSET);
    let od = p(P_DST_OFFSET);
    for (var i = gid.x + gid.y * nwg.x * WG; i < n; i += stride) {
        let v = src[os + i];
        dst[od + i] = vec4<D>(op(v.x), op(v.y), op(v.z), op(v.w));
    }
}
