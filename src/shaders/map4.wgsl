// Map family, vectorised: contiguous input and output, offsets and length multiples of 4.
// Each thread moves one vec4 (16-byte loads are far cheaper than four 4-byte ones on software
// adapters and help bandwidth on GPUs) and applies the scalar `op` per component.
// Params: 0 vec4 count, 1 src offset, 2 dst offset (both in vec4s).
@group(0) @binding(0) var<storage, read> src: array<vec4<S>>;
@group(0) @binding(1) var<storage, read_write> dst: array<vec4<D>>;
@group(0) @binding(2) var<uniform> P: Params;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = gid.x + gid.y * nwg.x * WG;
    if (i >= p(0u)) {
        return;
    }
    let v = src[p(1u) + i];
    dst[p(2u) + i] = vec4<D>(op(v.x), op(v.y), op(v.z), op(v.w));
}
