// Fill: out[i] = value. Params: 0 numel, 1 the value's bits (see the prelude's `value`).
@group(0) @binding(0) var<storage, read_write> out: array<D>;
@group(0) @binding(1) var<uniform> P: Params;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = gid.x + gid.y * nwg.x * WG;
    if (i < p(0u)) {
        out[i] = value(p(1u));
    }
}
