// Reduce a strided view ([kept.., reduced..], as Tensor::reduce permutes it) with one thread per
// output, for x.sum(0) and BatchNorm's statistics without a transposing copy first. Output g is
// kept index (g / m2, g % m2), at src offset off + (g / m2) * rs1 + (g % m2) * rs2; it folds the
// k1 x k2 reduced elements at a * es1 + b * es2 from there in row-major order, so the arg forms'
// index is a * k2 + b. Neighbouring outputs of a column reduction read neighbouring elements.
// Same prelude as reduce.wgsl. Params: `op::params::StridedReduceParams`.
@group(0) @binding(0) var<storage, read> src: array<S>;
@group(0) @binding(1) var<storage, read_write> dst: array<D>;
@group(0) @binding(2) var<uniform> P: Params;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let g = gid.x + gid.y * nwg.x * WG;
    if (g >= p(P_OUTPUTS)) {
        return;
    }
    let m2 = p(P_M2);
    let o = udiv(g, m2);
    let base = p(P_OFFSET) + o * p(P_RS1) + (g - o * m2) * p(P_RS2);
    let k1 = p(P_K1);
    let k2 = p(P_K2);
    let es1 = p(P_ES1);
    let es2 = p(P_ES2);
    var acc = identity();
    var idx = 0u;
    var has = false;
    for (var a = 0u; a < k1; a++) {
        let row = base + a * es1;
        for (var b = 0u; b < k2; b++) {
            fold(&acc, &idx, &has, A(src[row + b * es2]), a * k2 + b);
        }
    }
    dst[g] = finish(acc, idx);
}
