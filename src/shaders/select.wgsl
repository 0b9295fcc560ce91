// Top-k selection (topk with k <= 32), best first, in the order of sort.wgsl: keys from the
// stored bits through `key` (variant prelude), largest or smallest first, equal keys by position
// (so the result is the stable sort's first k). One thread per (row, chunk) keeps its chunk's
// best `keep` positions in a sorted list, inserting only what beats the worst kept; a second
// pass (mode 1) picks each row's best `keep` among its chunks' candidates. The sorting network
// ran 55 passes over a 1024-wide row; this reads it once.
// Params: `op::params::SelectParams`.
@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read> cand: array<u32>;
@group(0) @binding(2) var<storage, read_write> out: array<u32>;
@group(0) @binding(3) var<uniform> P: Params;

const MAX_KEEP: u32 = 32u;
const NONE: u32 = 0xffffffffu;

// Whether (ka at position a) ranks before (kb at position b).
fn beats(ka: u32, a: u32, kb: u32, b: u32) -> bool {
    if (ka != kb) {
        return select((ka < kb), (ka > kb), p(P_DESCENDING) == 1u);
    }
    return a < b;
}

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let t = gid.x + gid.y * nwg.x * WG;
    let m = p(P_ROWS);
    let keep = p(P_KEEP);
    let nchunks = p(P_CHUNKS);
    let mode = p(P_MERGE);
    let threads = select(m, m * nchunks, mode == 0u);
    if (t >= threads) {
        return;
    }
    let row = select(t, t / nchunks, mode == 0u);
    let base = p(P_OFFSET) + row * p(P_LEN);
    var kpos: array<u32, MAX_KEEP>;
    var kkey: array<u32, MAX_KEEP>;
    var cnt = 0u;
    // The worst kept, held apart so that the common case (no insertion) touches no array.
    var wkey = 0u;
    var wpos = 0u;
    var n: u32;
    var start = 0u;
    if (mode == 0u) {
        start = (t % nchunks) * p(P_CHUNK);
        n = min(p(P_CHUNK), p(P_LEN) - start);
    } else {
        n = nchunks * keep;
    }
    for (var j = 0u; j < n; j = j + 1u) {
        var pos: u32;
        if (mode == 0u) {
            pos = start + j;
        } else {
            pos = cand[row * n + j];
            if (pos == NONE) {
                continue;
            }
        }
        let kv = key(base + pos);
        if (cnt == keep && !beats(kv, pos, wkey, wpos)) {
            continue;
        }
        // Insert: shift worse entries down one (the worst falls off when the list is full).
        var i = min(cnt, keep - 1u);
        loop {
            if (i == 0u || !beats(kv, pos, kkey[i - 1u], kpos[i - 1u])) {
                break;
            }
            kkey[i] = kkey[i - 1u];
            kpos[i] = kpos[i - 1u];
            i = i - 1u;
        }
        kkey[i] = kv;
        kpos[i] = pos;
        cnt = min(cnt + 1u, keep);
        wkey = kkey[cnt - 1u];
        wpos = kpos[cnt - 1u];
    }
    let dst = t * keep;
    for (var i = 0u; i < keep; i = i + 1u) {
        out[dst + i] = select(NONE, kpos[i], i < cnt);
    }
}
