// Fused LayerNorm (op::layer_norm), one pass per program (PART, from the prelude). PART 0, the
// forward: a thread per row computes its mean and rsqrt(var + eps) (the composed formula's
// steps) and writes the row and both statistics. PART 1: a thread per row writes dx from the
// saved statistics. PART 2: a thread per column sums dy * xhat and dy over the rows (dw, db).
// Params: `op::params::LayerNormParams`.
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read> w: array<f32>;
@group(0) @binding(2) var<storage, read> b: array<f32>;
@group(0) @binding(3) var<storage, read> saved: array<f32>;
@group(0) @binding(4) var<storage, read> dy: array<f32>;
@group(0) @binding(5) var<storage, read_write> out: array<f32>;
@group(0) @binding(6) var<uniform> P: Params;

fn weight(i: u32) -> f32 {
    return select(1.0, w[p(P_W_OFFSET) + i], p(P_HAS_W) == 1u);
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
        var t = (x[base + i] - mean) * rstd * weight(i);
        if (p(P_HAS_B) == 1u) {
            t += b[p(P_B_OFFSET) + i];
        }
        out[r * n + i] = t;
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

fn grad_wb_col(i: u32) {
    let n = p(P_N);
    let rows = p(P_ROWS);
    var dw = 0.0;
    var db = 0.0;
    for (var r = 0u; r < rows; r++) {
        let xhat = (x[p(P_X_OFFSET) + r * n + i] - saved[p(P_MEAN_AT) + r]) * saved[p(P_MEAN_AT) + rows + r];
        let g = dy[p(P_DY_OFFSET) + r * n + i];
        dw += g * xhat;
        db += g;
    }
    out[rows * n + i] = dw;
    out[rows * n + n + i] = db;
}

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let t = gid.x + gid.y * nwg.x * WG;
    if (t >= p(P_THREADS)) {
        return;
    }
    switch PART {
        case 0u: { forward_row(t); }
        case 1u: { grad_x_row(t); }
        default: { grad_wb_col(t); }
    }
}
