// index_select / gather. An out-of-range index reads as 0 (a kernel cannot raise an error).
// Params: `op::params::IndexParams`.
@group(0) @binding(0) var<storage, read> src: array<S>;
@group(0) @binding(1) var<storage, read> idx: array<I>;
@group(0) @binding(2) var<storage, read_write> dst: array<S>;
@group(0) @binding(3) var<uniform> P: Params;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = gid.x + gid.y * nwg.x * WG;
    if (i >= p(P_NUMEL)) {
        return;
    }
    var rem = i;
    var off = p(P_SRC_OFFSET);
    var ok = true;
    // The walk (see KernelKey::Map's RANK): from the innermost dim out, the dims past the rank
    // never visited; a constant rank lets the compiler unroll it, so every parameter index is
    // constant (a dynamic one costs a load per lane on the CPU adapters).
    // Dim 0 stays in the loop, its division selected away.
    let rank = select(p(P_RANK), RANK, RANK != 0u);
    for (var d = i32(rank) - 1; d >= 0; d--) {
        let du = u32(d);
        let size = p(P_SHAPE + du);
        // Dim 0 is last: what is left of the index is its coordinate (see udiv).
        let q = select(udiv(rem, size), 0u, du == 0u);
        var c = rem - q * size;
        rem = q;
        if (du == p(P_DIM)) {
            let id = i32(idx[p(P_INDEX_OFFSET) + select(c, i, p(P_GATHER) == 1u)]);
            ok = ok && id >= 0 && u32(id) < p(P_DIM_SIZE);
            c = select(0u, u32(id), ok);
        }
        off += c * p(P_SRC_STRIDES + du);
    }
    dst[i] = select(S(0), src[off], ok);
}
