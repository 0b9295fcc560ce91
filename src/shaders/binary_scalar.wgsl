// Binary family with a scalar operand held in the uniform (`x + 0.5` needs no buffer for 0.5, no
// fill dispatch and no broadcast walk): out[i] = op(a[offset + i], s). The scalar arrives as
// bits that `scalar` turns into S.
// Params: `op::params::ScalarParams`.
@group(0) @binding(0) var<storage, read> a: array<S>;
@group(0) @binding(1) var<storage, read_write> out: array<D>;
@group(0) @binding(2) var<uniform> P: Params;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = gid.x + gid.y * nwg.x * WG;
    if (i >= p(P_COUNT)) {
        return;
    }
    out[i] = op(a[p(P_OFFSET) + i], scalar(p(P_BITS)));
}
