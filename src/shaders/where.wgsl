// where(cond, a, b) with broadcasting over all three.
// Params: `op::params::WhereParams`.
@group(0) @binding(0) var<storage, read> cond: array<u32>;
@group(0) @binding(1) var<storage, read> a: array<S>;
@group(0) @binding(2) var<storage, read> b: array<S>;
@group(0) @binding(3) var<storage, read_write> out: array<S>;
@group(0) @binding(4) var<uniform> P: Params;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = gid.x + gid.y * nwg.x * WG;
    if (i >= p(P_NUMEL)) {
        return;
    }
    var co = p(P_C_OFFSET);
    var ao = p(P_A_OFFSET);
    var bo = p(P_B_OFFSET);
    if (p(P_FAST) == 1u) {
        out[i] = select(b[bo + i], a[ao + i], cond[co + i] != 0u);
        return;
    }
    // The prelude's walk over the rank (see KernelKey::Map's RANK).
    let o = walk(i, select(p(P_RANK), RANK, RANK != 0u), vec3<u32>(P_C_STRIDES, P_A_STRIDES, P_B_STRIDES));
    co += o.x;
    ao += o.y;
    bo += o.z;
    out[i] = select(b[bo], a[ao], cond[co] != 0u);
}
