// The least and greatest value of an i32 or u32 index (op::fused::index_range), skipping the
// values equal to `ignore` when ignore_on, in two deterministic stages (PART, from the prelude):
// PART 0, a workgroup per chunk of chunk_len elements writes its pair to scratch (a single
// chunk's, fixed up, straight to out, and there is no PART 1); PART 1, one workgroup folds the
// chunks' pairs. A pair with nothing counted is (greatest, least) of D, written as (0, 0).
// Params: `op::fused::index_range::IndexRangeParams`.
@group(0) @binding(0) var<storage, read> src: array<D>;
@group(0) @binding(1) var<storage, read_write> out: array<D>;
@group(0) @binding(2) var<storage, read_write> scratch: array<D>;
@group(0) @binding(3) var<uniform> P: Params;

var<workgroup> lows: array<D, WG>;
var<workgroup> highs: array<D, WG>;

// The least of every invocation's `lo` and the greatest `hi` (every invocation gets them).
fn workgroup_range(lo: D, hi: D, t: u32) -> vec2<D> {
    lows[t] = lo;
    highs[t] = hi;
    workgroupBarrier();
    for (var s = WG / 2u; s > 0u; s /= 2u) {
        if (t < s) {
            lows[t] = min(lows[t], lows[t + s]);
            highs[t] = max(highs[t], highs[t + s]);
        }
        workgroupBarrier();
    }
    let r = vec2<D>(lows[0], highs[0]);
    workgroupBarrier();
    return r;
}

// The pair as the output holds it: (0, 0) where nothing was counted.
fn settled(r: vec2<D>) -> vec2<D> {
    return select(r, vec2<D>(D(0), D(0)), r.x > r.y);
}

@compute @workgroup_size(WG)
fn main(
    @builtin(local_invocation_index) t: u32,
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    // The identities of max and min in D: whether D is i32 shows in its all-ones word's sign.
    let signed = bitcast<D>(0xffffffffu) < D(0);
    let least = bitcast<D>(select(0u, 0x80000000u, signed));
    let greatest = bitcast<D>(select(0xffffffffu, 0x7fffffffu, signed));
    if (PART == 1u) {
        if (wid.x + wid.y > 0u) {
            return;
        }
        var lo = greatest;
        var hi = least;
        for (var c = t; c < p(P_CHUNKS); c += WG) {
            lo = min(lo, scratch[2u * c]);
            hi = max(hi, scratch[2u * c + 1u]);
        }
        let r = settled(workgroup_range(lo, hi, t));
        if (t == 0u) {
            out[0] = r.x;
            out[1] = r.y;
        }
        return;
    }
    let ignore = bitcast<D>(p(P_IGNORE));
    // Chunks numbered over a 2-D grid, striding past it.
    for (var c = wid.x + wid.y * nwg.x; c < p(P_CHUNKS); c += nwg.x * nwg.y) {
        let end = min((c + 1u) * p(P_CHUNK_LEN), p(P_NUMEL));
        var lo = greatest;
        var hi = least;
        for (var i = c * p(P_CHUNK_LEN) + t; i < end; i += WG) {
            let v = src[p(P_SRC_OFFSET) + i];
            if (p(P_IGNORE_ON) == 0u || v != ignore) {
                lo = min(lo, v);
                hi = max(hi, v);
            }
        }
        let r = workgroup_range(lo, hi, t);
        if (t == 0u && p(P_CHUNKS) == 1u) {
            let s = settled(r);
            out[0] = s.x;
            out[1] = s.y;
        } else if (t == 0u) {
            scratch[2u * c] = r.x;
            scratch[2u * c + 1u] = r.y;
        }
    }
}
