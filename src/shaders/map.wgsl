// Map family: dst[strided] = op(src[strided]) for unary ops, casts and copies.
// Params: 0 numel (rows in row mode), 1 rank, 2 src offset, 3 dst offset, 4..12 shape,
// 12..20 src strides, 20..28 dst strides, 28 fast path (1 when both sides are contiguous),
// 29 row length (row mode: a thread per row of the innermost dim; 0 otherwise).
@group(0) @binding(0) var<storage, read> src: array<S>;
@group(0) @binding(1) var<storage, read_write> dst: array<D>;
@group(0) @binding(2) var<uniform> P: Params;

// The source and destination offsets (before the base offsets) of index `i` over the first
// `dims` dims, from the innermost out, dim 0 peeled (no division). A constant `dims` lets the
// compiler unroll it, so every parameter index is constant (a dynamic one costs a load per
// lane on the CPU adapters); no dim past `dims` is visited: SwiftShader runs a loop as
// written, and 8 passes, each branching on the rank, made its broadcasts 1.6x a plain add.
fn offsets(i: u32, dims: u32) -> vec2<u32> {
    var rem = i;
    var o = vec2<u32>(0u, 0u);
    for (var d = i32(dims) - 1; d >= 1; d--) {
        let du = u32(d);
        let size = p(4u + du);
        let q = udiv(rem, size);
        let c = rem - q * size;
        rem = q;
        o += c * vec2<u32>(p(12u + du), p(20u + du));
    }
    // Dim 0 is last: what is left of the index is its coordinate (see udiv).
    if (dims > 0u) {
        o += rem * vec2<u32>(p(12u), p(20u));
    }
    return o;
}

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
        let o = offsets(i, rank - 1u);
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
        let o = offsets(i, rank);
        so += o.x;
        dof += o.y;
    }
    dst[dof] = op(src[so]);
}
