// index_add / scatter_add (the gradients of index_select / gather): each output element sums,
// in increasing source order, the source elements whose index names it. A loop per output
// rather than atomics: WGSL has no float atomics, and the sum comes out the same on every run
// and every backend. An out-of-range index adds nowhere. In assign mode (`scatter`) the last
// source element in that order wins instead.
// Params: `op::params::IndexAddParams`.
@group(0) @binding(0) var<storage, read> src: array<S>;
@group(0) @binding(1) var<storage, read> idx: array<I>;
@group(0) @binding(2) var<storage, read_write> dst: array<S>;
@group(0) @binding(3) var<uniform> P: Params;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let o = gid.x + gid.y * nwg.x * WG;
    if (o >= p(P_NUMEL)) {
        return;
    }
    let dim = p(P_DIM);
    var rem = o;
    var soff = p(P_SRC_OFFSET);
    // Offset into the (contiguous, source-shaped) gather index, without the `dim` coordinate.
    var ioff = 0u;
    var istride = 1u;
    var dim_istride = 0u;
    var want = 0u;
    var inside = true;
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
        let c = rem - q * size;
        rem = q;
        let ssize = p(P_SRC_SHAPE + du);
        if (du == dim) {
            want = c;
            dim_istride = istride;
        } else {
            inside = inside && c < ssize;
            soff += c * p(P_SRC_STRIDES + du);
            ioff += c * istride;
        }
        istride *= ssize;
    }
    var acc = A(0);
    if (inside) {
        let gather = p(P_GATHER) == 1u;
        let assign = p(P_ASSIGN) == 1u;
        let step = p(P_SRC_STRIDES + dim);
        for (var i = 0u; i < p(P_DIM_SIZE); i++) {
            let id = i32(idx[p(P_INDEX_OFFSET) + select(i, ioff + i * dim_istride, gather)]);
            if (id >= 0 && u32(id) == want) {
                let v = A(src[soff + i * step]);
                acc = select(acc + v, v, assign);
            }
        }
    }
    dst[o] = S(acc);
}
