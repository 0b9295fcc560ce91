// Map family: dst[strided] = op(src[strided]) for unary ops, casts and copies.
// Params: 0 numel (rows in row mode), 1 rank, 2 src offset, 3 dst offset, 4..12 shape,
// 12..20 src strides, 20..28 dst strides, 28 fast path (1 when both sides are contiguous),
// 29 row length (row mode: a thread per row of the innermost dim; 0 otherwise).
@group(0) @binding(0) var<storage, read> src: array<S>;
@group(0) @binding(1) var<storage, read_write> dst: array<D>;
@group(0) @binding(2) var<uniform> P: Params;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = gid.x + gid.y * nwg.x * WG;
    if (i >= p(0u)) {
        return;
    }
    var so = p(2u);
    var dof = p(3u);
    let rank = select(p(1u), RANK, RANK != 0u);
    let row = p(29u);
    if (row > 0u) {
        // A thread per row of the innermost dim (software adapters): the outer dims' offsets
        // once, then the row walked by its strides. p(0) counts rows.
        let o = walk(i, rank - 1u, vec3<u32>(12u, 20u, 20u));
        so += o.x;
        dof += o.y;
        let ss = p(12u + rank - 1u);
        let ds = p(20u + rank - 1u);
        for (var j = 0u; j < row; j++) {
            dst[dof + j * ds] = op(src[so + j * ss]);
        }
        return;
    }
    if (p(28u) == 1u) {
        so += i;
        dof += i;
    } else {
        let o = walk(i, rank, vec3<u32>(12u, 20u, 20u));
        so += o.x;
        dof += o.y;
    }
    dst[dof] = op(src[so]);
}
