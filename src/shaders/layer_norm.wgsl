// Fused LayerNorm (op::fused::layer_norm), one pass per program (PART, from the prelude).
// Software adapters (few cores, barriers costly): PART 0, the forward, a thread per row (its
// mean and rsqrt(var + eps), the composed formula's steps, then the row and both statistics);
// PART 1 a thread per row writes dx from the saved statistics. Hardware GPUs run the same
// rows a workgroup each (PART 4 and 5: coalesced loads, the sums reduced in workgroup memory).
// dw and db in two deterministic stages on both: PART 2, workgroup (x: 32 columns, y: chunks
// of LN_ROWS rows, y striding past the grid limit) writes its partial sums of dy * xhat and dy
// to `scratch` ([chunks, n] each); PART 3, a thread per column adds its chunks in order.
// Params: `op::fused::layer_norm::LayerNormParams`.
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read> w: array<f32>;
@group(0) @binding(2) var<storage, read> b: array<f32>;
@group(0) @binding(3) var<storage, read> saved: array<f32>;
@group(0) @binding(4) var<storage, read> dy: array<f32>;
@group(0) @binding(5) var<storage, read_write> out: array<f32>;
@group(0) @binding(6) var<storage, read_write> scratch: array<f32>;
@group(0) @binding(7) var<uniform> P: Params;

const LN_ROWS: u32 = 64u; // op::fused::layer_norm::LN_ROWS

fn weight(i: u32) -> f32 {
    return select(1.0, w[p(P_W_OFFSET) + i], p(P_HAS_W) == 1u);
}

// The normalised value v of column i with the weight and the bias applied (none added without
// a bias, so a -0 stays -0 as on the CPU).
fn affine(v: f32, i: u32) -> f32 {
    let t = v * weight(i);
    if (p(P_HAS_B) == 1u) {
        return t + b[p(P_B_OFFSET) + i];
    }
    return t;
}

fn forward_row(r: u32) {
    let n = p(P_N);
    let base = p(P_X_OFFSET) + r * n;
    var sum = 0.0;
    for (var i = 0u; i < n; i++) {
        sum += x[base + i];
    }
    let mean = sum / f32(n);
    var sq = 0.0;
    for (var i = 0u; i < n; i++) {
        let c = x[base + i] - mean;
        sq += c * c;
    }
    let rstd = inverseSqrt(sq / f32(n) + bitcast<f32>(p(P_EPS)));
    for (var i = 0u; i < n; i++) {
        out[r * n + i] = affine((x[base + i] - mean) * rstd, i);
    }
    out[p(P_MEAN_AT) + r] = mean;
    out[p(P_MEAN_AT) + p(P_ROWS) + r] = rstd;
}

fn grad_x_row(r: u32) {
    let n = p(P_N);
    let xb = p(P_X_OFFSET) + r * n;
    let gb = p(P_DY_OFFSET) + r * n;
    let mean = saved[p(P_MEAN_AT) + r];
    let rstd = saved[p(P_MEAN_AT) + p(P_ROWS) + r];
    var sg = 0.0;
    var sgx = 0.0;
    for (var i = 0u; i < n; i++) {
        let g = dy[gb + i] * weight(i);
        sg += g;
        sgx += g * (x[xb + i] - mean) * rstd;
    }
    let mg = sg / f32(n);
    let mgx = sgx / f32(n);
    for (var i = 0u; i < n; i++) {
        let xhat = (x[xb + i] - mean) * rstd;
        out[r * n + i] = rstd * (dy[gb + i] * weight(i) - mg - xhat * mgx);
    }
}

// PART 4: the forward of row r by the whole workgroup.
fn forward_row_wg(r: u32, t: u32) {
    let n = p(P_N);
    let base = p(P_X_OFFSET) + r * n;
    var sum = 0.0;
    for (var i = t; i < n; i += WG) {
        sum += x[base + i];
    }
    let mean = workgroup_sums(sum, 0.0, t).x / f32(n);
    var sq = 0.0;
    for (var i = t; i < n; i += WG) {
        let c = x[base + i] - mean;
        sq += c * c;
    }
    let rstd = inverseSqrt(workgroup_sums(sq, 0.0, t).x / f32(n) + bitcast<f32>(p(P_EPS)));
    for (var i = t; i < n; i += WG) {
        out[r * n + i] = affine((x[base + i] - mean) * rstd, i);
    }
    if (t == 0u) {
        out[p(P_MEAN_AT) + r] = mean;
        out[p(P_MEAN_AT) + p(P_ROWS) + r] = rstd;
    }
}

// PART 5: dx of row r by the whole workgroup.
fn grad_x_row_wg(r: u32, t: u32) {
    let n = p(P_N);
    let xb = p(P_X_OFFSET) + r * n;
    let gb = p(P_DY_OFFSET) + r * n;
    let mean = saved[p(P_MEAN_AT) + r];
    let rstd = saved[p(P_MEAN_AT) + p(P_ROWS) + r];
    var sg = 0.0;
    var sgx = 0.0;
    for (var i = t; i < n; i += WG) {
        let g = dy[gb + i] * weight(i);
        sg += g;
        sgx += g * (x[xb + i] - mean) * rstd;
    }
    let sums = workgroup_sums(sg, sgx, t) / f32(n);
    for (var i = t; i < n; i += WG) {
        let xhat = (x[xb + i] - mean) * rstd;
        out[r * n + i] = rstd * (dy[gb + i] * weight(i) - sums.x - xhat * sums.y);
    }
}

// PART 2: partial dw and db of 32 columns over chunks of rows, WG / 32 lanes per chunk.
fn grad_wb_partials(wid: vec3<u32>, nwg: vec3<u32>, t: u32) {
    let n = p(P_N);
    let rows = p(P_ROWS);
    let col = t % 32u;
    let lane = t / 32u;
    let i = wid.x * 32u + col;
    for (var chunk = wid.y; chunk < p(P_CHUNKS); chunk += nwg.y) {
        let r1 = min(chunk * LN_ROWS + LN_ROWS, rows);
        var dw = 0.0;
        var db = 0.0;
        if (i < n) {
            for (var r = chunk * LN_ROWS + lane; r < r1; r += WG / 32u) {
                let xhat = (x[p(P_X_OFFSET) + r * n + i] - saved[p(P_MEAN_AT) + r]) * saved[p(P_MEAN_AT) + rows + r];
                let g = dy[p(P_DY_OFFSET) + r * n + i];
                dw += g * xhat;
                db += g;
            }
        }
        red[t] = dw;
        red2[t] = db;
        workgroupBarrier();
        if (lane == 0u && i < n) {
            for (var l = 1u; l < WG / 32u; l++) {
                dw += red[l * 32u + col];
                db += red2[l * 32u + col];
            }
            scratch[chunk * n + i] = dw;
            scratch[(p(P_CHUNKS) + chunk) * n + i] = db;
        }
        workgroupBarrier();
    }
}

// PART 3: a thread per column adds its chunks' partials in order.
fn grad_wb_sum(i: u32) {
    let n = p(P_N);
    let rows = p(P_ROWS);
    var dw = 0.0;
    var db = 0.0;
    for (var c = 0u; c < p(P_CHUNKS); c++) {
        dw += scratch[c * n + i];
        db += scratch[(p(P_CHUNKS) + c) * n + i];
    }
    out[rows * n + i] = dw;
    out[rows * n + n + i] = db;
}

@compute @workgroup_size(WG)
fn main(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(local_invocation_index) t: u32,
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    if (PART == 2u) {
        grad_wb_partials(wid, nwg, t);
        return;
    }
    if (PART == 4u || PART == 5u) {
        // A workgroup per row (rows numbered over a 2-D grid).
        let r = wid.x + wid.y * nwg.x;
        if (r < p(P_ROWS)) {
            if (PART == 4u) {
                forward_row_wg(r, t);
            } else {
                grad_x_row_wg(r, t);
            }
        }
        return;
    }
    let i = gid.x + gid.y * nwg.x * WG;
    if (i >= p(P_THREADS)) {
        return;
    }
    switch PART {
        case 0u: { forward_row(i); }
        case 1u: { grad_x_row(i); }
        default: { grad_wb_sum(i); }
    }
}
