// Reduce each row of a contiguous [m, k] input; each workgroup folds one chunk of one row, so a
// long row is reduced in several passes ([m, k] -> [m, chunks] -> ... -> [m, 1]).
// Params: 0 m, 1 k, 2 chunk length, 3 chunks per row, 4 src offset.
@group(0) @binding(0) var<storage, read> src: array<S>;
@group(0) @binding(1) var<storage, read_write> dst: array<D>;
@group(0) @binding(2) var<uniform> P: Params;

var<workgroup> sv: array<A, WG>;
var<workgroup> si: array<u32, WG>;
var<workgroup> sh: array<u32, WG>;

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    let m = p(0u);
    let k = p(1u);
    let chunk = p(2u);
    let nchunks = p(3u);
    let g = wid.x + wid.y * nwg.x;
    let row = g / nchunks;
    let c = g % nchunks;
    let live = row < m;
    let t = lid.x;
    var acc: A;
    var idx = 0u;
    var has = false;
    if (live) {
        let base = p(4u) + row * k;
        let end = min(c * chunk + chunk, k);
        for (var j = c * chunk + t; j < end; j += WG) {
            let v = A(src[base + j]);
            fold(&acc, &idx, &has, v, j);
        }
    }
    sv[t] = acc;
    si[t] = idx;
    sh[t] = select(0u, 1u, has);
    workgroupBarrier();
    for (var s = WG / 2u; s > 0u; s = s / 2u) {
        if (t < s && sh[t + s] == 1u) {
            let o = sv[t + s];
            let oi = si[t + s];
            if (sh[t] == 0u) {
                sv[t] = o;
                si[t] = oi;
                sh[t] = 1u;
            } else if (SELECT) {
                // Equal values, or two NaNs (NaN != NaN), keep the lower index: the first wins.
                if (better(o, sv[t]) || ((o == sv[t] || (is_nan_any(o) && is_nan_any(sv[t]))) && oi < si[t])) {
                    sv[t] = o;
                    si[t] = oi;
                }
            } else {
                sv[t] = combine(sv[t], o);
            }
        }
        workgroupBarrier();
    }
    if (t == 0u && live) {
        var r = identity();
        if (sh[0] == 1u) {
            r = sv[0];
        }
        dst[row * nchunks + c] = finish(r, si[0]);
    }
}
