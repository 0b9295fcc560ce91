// Fused cross-entropy with class indices (op::fused::cross_entropy), one pass per program
// (PART, from the prelude). Software adapters (few cores, barriers costly) run a thread per
// row: PART 0 the forward (each row's loss and lse), PART 1 the scores' gradient. Hardware GPUs
// run the same rows a workgroup each (PART 2 and 3: coalesced loads, the max and sums reduced
// in workgroup memory). Params: `op::fused::cross_entropy::CrossEntropyParams`.
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read> t: array<i32>;
@group(0) @binding(2) var<storage, read> saved: array<f32>;
@group(0) @binding(3) var<storage, read> g: array<f32>;
@group(0) @binding(4) var<storage, read_write> out: array<f32>;
@group(0) @binding(5) var<uniform> P: Params;

// Row r's target, and whether it counts (in range and not the ignored value).
fn row_target(r: u32) -> i32 {
    return t[p(P_T_OFFSET) + r];
}

fn counts(tr: i32) -> bool {
    let ignored = p(P_HAS_IGNORE) == 1u && tr == bitcast<i32>(p(P_IGNORE));
    return tr >= 0 && u32(tr) < p(P_CLASSES) && !ignored;
}

// -inf, made at run time: Tint refuses a constant expression whose value is infinite.
fn neg_inf() -> f32 {
    return bitcast<f32>(0xff800000u | (p(P_ROWS) & 0u));
}

// NaN-propagating max (WGSL's max may drop a NaN operand).
fn max_nan(m: f32, v: f32) -> f32 {
    return select(m, v, v > m || v != v);
}

// The loss from a row's lse, its target score and the sum of its scores.
fn row_loss(tr: i32, lse: f32, xt: f32, sum: f32) -> f32 {
    if (!counts(tr)) {
        return 0.0;
    }
    let eps = bitcast<f32>(p(P_SMOOTHING));
    var loss = lse - (1.0 - eps) * xt;
    if (eps > 0.0) {
        loss -= eps * (sum / f32(p(P_CLASSES)));
    }
    return loss;
}

// The target's score (0 where the target does not count: nothing outside the row is read).
fn target_score(base: u32, tr: i32) -> f32 {
    return select(0.0, x[base + u32(max(tr, 0))], counts(tr));
}

// PART 0: the forward of row r by one thread.
fn forward_row(r: u32) {
    let c = p(P_CLASSES);
    let base = p(P_X_OFFSET) + r * c;
    var m = neg_inf();
    for (var i = 0u; i < c; i++) {
        m = max_nan(m, x[base + i]);
    }
    var s = 0.0;
    var sum = 0.0;
    for (var i = 0u; i < c; i++) {
        s += exp(x[base + i] - m);
        sum += x[base + i];
    }
    let lse = m + log(s);
    let tr = row_target(r);
    out[r] = row_loss(tr, lse, target_score(base, tr), sum);
    out[p(P_ROWS) + r] = lse;
}

// The scores' gradient at column i of a counted row.
fn grad_at(v: f32, i: u32, tr: i32, lse: f32, gr: f32) -> f32 {
    let eps = bitcast<f32>(p(P_SMOOTHING));
    let onehot = select(0.0, 1.0 - eps, i == u32(tr));
    return gr * (exp(v - lse) - eps / f32(p(P_CLASSES))) - gr * onehot;
}

// PART 1 and 3: the gradient of row r, columns from `first` in steps of `step` (one thread
// all of them, or each of a workgroup's invocations its share).
fn grad_row(r: u32, first: u32, step: u32) {
    let c = p(P_CLASSES);
    let base = p(P_X_OFFSET) + r * c;
    let tr = row_target(r);
    let lse = saved[p(P_ROWS) + r];
    let gr = g[p(P_G_OFFSET) + r];
    let live = counts(tr);
    for (var i = first; i < c; i += step) {
        out[r * c + i] = select(0.0, grad_at(x[base + i], i, tr, lse, gr), live);
    }
}

// The max of a over the workgroup (every invocation gets it).
fn workgroup_max(a: f32, l: u32) -> f32 {
    red[l] = a;
    workgroupBarrier();
    for (var s = WG / 2u; s > 0u; s /= 2u) {
        if (l < s) {
            red[l] = max_nan(red[l], red[l + s]);
        }
        workgroupBarrier();
    }
    let total = red[0];
    workgroupBarrier();
    return total;
}

// PART 2: the forward of row r by the whole workgroup.
fn forward_row_wg(r: u32, l: u32) {
    let c = p(P_CLASSES);
    let base = p(P_X_OFFSET) + r * c;
    var m = neg_inf();
    for (var i = l; i < c; i += WG) {
        m = max_nan(m, x[base + i]);
    }
    m = workgroup_max(m, l);
    var s = 0.0;
    var sum = 0.0;
    for (var i = l; i < c; i += WG) {
        s += exp(x[base + i] - m);
        sum += x[base + i];
    }
    let sums = workgroup_sums(s, sum, l);
    if (l == 0u) {
        let lse = m + log(sums.x);
        let tr = row_target(r);
        out[r] = row_loss(tr, lse, target_score(base, tr), sums.y);
        out[p(P_ROWS) + r] = lse;
    }
}

@compute @workgroup_size(WG)
fn main(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(local_invocation_index) l: u32,
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    if (PART >= 2u) {
        // A workgroup per row (rows numbered over a 2-D grid).
        let r = wid.x + wid.y * nwg.x;
        if (r < p(P_ROWS)) {
            if (PART == 2u) {
                forward_row_wg(r, l);
            } else {
                grad_row(r, l, WG);
            }
        }
        return;
    }
    let i = gid.x + gid.y * nwg.x * WG;
    if (i >= p(P_THREADS)) {
        return;
    }
    if (PART == 0u) {
        forward_row(i);
    } else {
        grad_row(i, 0u, 1u);
    }
}
