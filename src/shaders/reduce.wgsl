// Reduce each row of a contiguous [m, k] input; each workgroup folds one chunk of one row, so a
// long row is reduced in several passes ([m, k] -> [m, chunks] -> ... -> [m, 1]).
// Params: `op::params::ReduceParams`.
@group(0) @binding(0) var<storage, read> src: array<S>;
@group(0) @binding(1) var<storage, read_write> dst: array<D>;
@group(0) @binding(2) var<uniform> P: Params;

var<workgroup> sv: array<A, WG>;
var<workgroup> si: array<u32, WG>;
var<workgroup> sh: array<u32, WG>;

const FAN: u32 = 16u;

// Folds slot o into slot t (o holds later elements of the row than t).
fn merge(t: u32, o: u32) {
    if (sh[o] == 0u) {
        return;
    }
    let v = sv[o];
    let vi = si[o];
    if (sh[t] == 0u) {
        sv[t] = v;
        si[t] = vi;
        sh[t] = 1u;
    } else if (SELECT) {
        // Equal values, or two NaNs (NaN != NaN), keep the lower index: the first wins.
        if (better(v, sv[t]) || ((v == sv[t] || (is_nan_any(v) && is_nan_any(sv[t]))) && vi < si[t])) {
            sv[t] = v;
            si[t] = vi;
        }
    } else {
        sv[t] = combine(sv[t], v);
    }
}

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    let m = p(P_ROWS);
    let k = p(P_K);
    let chunk = p(P_CHUNK);
    let nchunks = p(P_CHUNKS);
    let g = wid.x + wid.y * nwg.x;
    let row = g / nchunks;
    let c = g % nchunks;
    let live = row < m;
    let t = lid.x;
    var acc: A;
    var idx = 0u;
    var has = false;
    if (live) {
        let base = p(P_OFFSET) + row * k;
        let end = min(c * chunk + chunk, k);
        if (SELECT) {
            for (var j = c * chunk + t; j < end; j += WG) {
                let v = A(src[base + j]);
                fold(&acc, &idx, &has, v, j);
            }
        } else {
            // Sum and prod start from their identity, so the loop is one combine per element
            // (fold's first-element branch made a 4M sum 0.5x TF.js on lavapipe).
            acc = identity();
            has = true;
            for (var j = c * chunk + t; j < end; j += WG) {
                acc = combine(acc, A(src[base + j]));
            }
        }
    }
    sv[t] = acc;
    si[t] = idx;
    sh[t] = select(0u, 1u, has);
    workgroupBarrier();
    // Two-level fold: FAN threads each fold FAN slots, then thread 0 folds their results. A
    // halving tree takes log2(WG) = 8 barriers, and lavapipe runs each barrier as a switch
    // between the workgroup's invocations: trees made a 4M sum 0.5x TF.js there.
    if (t < WG / FAN) {
        for (var i = 1u; i < FAN; i++) {
            merge(t * FAN, t * FAN + i);
        }
    }
    workgroupBarrier();
    if (t == 0u && live) {
        for (var i = FAN; i < WG; i += FAN) {
            merge(0u, i);
        }
        var r = identity();
        if (sh[0] == 1u) {
            r = sv[0];
        }
        dst[row * nchunks + c] = finish(r, si[0]);
    }
}
