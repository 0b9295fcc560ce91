// Reduce each short row of a contiguous [m, k] input with one thread per row (a workgroup per
// row would leave most of its threads idle when k is small: classes, channels, coordinates).
// On software adapters long rows come here too, cut into `nchunks` interleaved parts per row
// (thread c of a row folds elements c, c + nchunks, ...: neighbouring threads read neighbouring
// elements), with no workgroup memory and no barriers; the partials are folded again. Arg
// reductions always take whole rows (nchunks = 1), so indices stay global.
// Same prelude as reduce.wgsl. Params: `op::params::ReduceSmallParams`.
@group(0) @binding(0) var<storage, read> src: array<S>;
@group(0) @binding(1) var<storage, read_write> dst: array<D>;
@group(0) @binding(2) var<uniform> P: Params;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let g = gid.x + gid.y * nwg.x * WG;
    let nchunks = p(P_CHUNKS);
    let m = p(P_ROWS);
    if (g >= m * nchunks) {
        return;
    }
    let k = p(P_K);
    let row = udiv(g, nchunks);
    let c = g - row * nchunks;
    let base = p(P_OFFSET) + row * k;
    var acc = identity();
    var idx = 0u;
    var has = false;
    for (var j = c; j < k; j += nchunks) {
        let v = A(src[base + j]);
        fold(&acc, &idx, &has, v, j);
    }
    dst[g] = finish(acc, idx);
}
