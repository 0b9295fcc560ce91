// where(cond, a, b) with broadcasting over all three.
// Params: 0 numel, 1 rank, 2 cond offset, 3 a offset, 4..12 shape, 12..20 cond strides,
// 20..28 a strides, 28..36 b strides (over the coalesced dims), 36 b offset, 37 fast path (1:
// all three contiguous with the output's shape, no index arithmetic; it cost a same-shape
// where over 1M 28 ms on lavapipe, an add 5).
@group(0) @binding(0) var<storage, read> cond: array<u32>;
@group(0) @binding(1) var<storage, read> a: array<S>;
@group(0) @binding(2) var<storage, read> b: array<S>;
@group(0) @binding(3) var<storage, read_write> out: array<S>;
@group(0) @binding(4) var<uniform> P: Params;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = gid.x + gid.y * nwg.x * WG;
    if (i >= p(0u)) {
        return;
    }
    var co = p(2u);
    var ao = p(3u);
    var bo = p(36u);
    if (p(37u) == 1u) {
        out[i] = select(b[bo + i], a[ao + i], cond[co + i] != 0u);
        return;
    }
    // The prelude's walk over the rank (see KernelKey::Map's RANK).
    let o = walk(i, select(p(1u), RANK, RANK != 0u), vec3<u32>(12u, 20u, 28u));
    co += o.x;
    ao += o.y;
    bo += o.z;
    out[i] = select(b[bo], a[ao], cond[co] != 0u);
}
