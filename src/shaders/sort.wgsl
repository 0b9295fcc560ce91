// Stable bitonic argsort of each row of a contiguous [m, k] source into an index buffer of
// [m, np] (np: k rounded up to a power of two). One dispatch per network step: the host runs
// the initialising pass (kk = 0), then for kk = 2, 4, .., np and j = kk/2, .., 1 one
// compare-exchange pass in which every thread owns one pair (i, i + j) of one row. Positions
// past k are padding and sort last; equal keys are ordered by position, so the order is total
// and the result stable. The source is read as raw words through `key` (variant prelude).
// Params: `op::params::SortParams`.
@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read_write> idx: array<u32>;
@group(0) @binding(2) var<uniform> P: Params;

// Whether position a of `row` sorts before position b.
fn before(row: u32, a: u32, b: u32) -> bool {
    let len = p(P_LEN);
    if (a >= len) {
        return false;
    }
    if (b >= len) {
        return true;
    }
    let base = p(P_OFFSET) + row * len;
    let ka = key(base + a);
    let kb = key(base + b);
    if (ka != kb) {
        return select((ka < kb), (ka > kb), p(P_DESCENDING) == 1u);
    }
    return a < b;
}

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let t = gid.x + gid.y * nwg.x * WG;
    let np = p(P_NP);
    let kk = p(P_KK);
    if (kk == 0u) {
        if (t < p(P_ROWS) * np) {
            idx[t] = t % np;
        }
        return;
    }
    let half = np / 2u;
    if (t >= p(P_ROWS) * half) {
        return;
    }
    let row = t / half;
    let w = t % half;
    let j = p(P_J);
    let i = 2u * j * (w / j) + w % j;
    let base = row * np;
    let a = idx[base + i];
    let b = idx[base + i + j];
    // Blocks whose bit kk is clear sort ascending in the network's sense, the others descending.
    let swap = select(before(row, a, b), before(row, b, a), (i & kk) == 0u);
    if (swap) {
        idx[base + i] = b;
        idx[base + i + j] = a;
    }
}
