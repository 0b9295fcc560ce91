// Running sums (op::fused::scan): a thread per (outer, inner) column of a contiguous
// `[outer, n, inner]`, summing along n in order (D: f32 or i32; i32 wraps).
// Params: `op::fused::scan::ScanParams`.
@group(0) @binding(0) var<storage, read> src: array<D>;
@group(0) @binding(1) var<storage, read_write> out: array<D>;
@group(0) @binding(2) var<uniform> P: Params;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let c = gid.x + gid.y * nwg.x * WG;
    if (c >= p(P_COLUMNS)) {
        return;
    }
    let inner = p(P_INNER);
    let n = p(P_N);
    let o = c / inner;
    let base = o * n * inner + (c - o * inner);
    var acc = D(0);
    for (var k = 0u; k < n; k++) {
        let at = base + k * inner;
        acc = acc + src[p(P_SRC_OFFSET) + at];
        out[at] = acc;
    }
}
