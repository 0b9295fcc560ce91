// Reduce each short row of a contiguous [m, k] input with one thread per row (a workgroup per
// row would leave most of its threads idle when k is small: classes, channels, coordinates).
// Same prelude as reduce.wgsl. Params: 0 m, 1 k, 2 src offset.
@group(0) @binding(0) var<storage, read> src: array<S>;
@group(0) @binding(1) var<storage, read_write> dst: array<D>;
@group(0) @binding(2) var<uniform> P: Params;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let row = gid.x + gid.y * nwg.x * WG;
    if (row >= p(0u)) {
        return;
    }
    let k = p(1u);
    let base = p(2u) + row * k;
    var acc = identity();
    var idx = 0u;
    var has = false;
    for (var j = 0u; j < k; j++) {
        let v = A(src[base + j]);
        fold(&acc, &idx, &has, v, j);
    }
    dst[row] = finish(acc, idx);
}
