// Map family: dst[strided] = op(src[strided]) for unary ops, casts and copies.
// Params: `op::params::MapParams`.
@group(0) @binding(0) var<storage, read> src: array<S>;
@group(0) @binding(1) var<storage, read_write> dst: array<D>;
@group(0) @binding(2) var<uniform> P: Params;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = gid.x + gid.y * nwg.x * WG;
    if (i >= p(P_NUMEL)) {
        return;
    }
    var so = p(P_SRC_OFFSET);
    var dof = p(P_DST_OFFSET);
    let rank = select(p(P_RANK), RANK, RANK != 0u);
    let row = p(P_ROW_LEN);
    if (row > 0u) {
        // A thread per row of the innermost dim (software adapters): the outer dims' offsets
        // once, then the row walked by its strides. numel counts rows.
        let o = walk(i, rank - 1u, vec3<u32>(P_SRC_STRIDES, P_DST_STRIDES, P_DST_STRIDES));
        so += o.x;
        dof += o.y;
        let ss = p(P_SRC_STRIDES + rank - 1u);
        let ds = p(P_DST_STRIDES + rank - 1u);
        for (var j = 0u; j < row; j++) {
            dst[dof + j * ds] = op(src[so + j * ss]);
        }
        return;
    }
    if (p(P_FAST) == 1u) {
        so += i;
        dof += i;
    } else {
        let o = walk(i, rank, vec3<u32>(P_SRC_STRIDES, P_DST_STRIDES, P_DST_STRIDES));
        so += o.x;
        dof += o.y;
    }
    dst[dof] = op(src[so]);
}
