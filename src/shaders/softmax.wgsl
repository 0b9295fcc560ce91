// Softmax / log-softmax of each row of a contiguous [m, k] input, one workgroup per row: max,
// then the sum of exp(x - max), then the output. Each thread keeps its first CACHE elements of
// the row (j = t, t + WG, ...) in registers, so a row of up to CACHE * WG elements is read once
// and each exp computed once (three reads and two exps per element made this 0.5x TF.js on
// lavapipe); longer rows read the rest again in each pass.
// On software adapters (params word 3 = 1) each thread takes a whole row instead: no workgroup
// memory and no barriers, which lavapipe and SwiftShader run as switches between invocations
// (1024 rows of 1024 took 440 ms on SwiftShader with a workgroup per row, TF.js 84 ms).
// A NaN anywhere in a row makes the whole row NaN (as PyTorch): the maximum carries the NaN,
// found by its bits (`is_nan`), and every output of that row is that NaN. Left to float
// arithmetic, SwiftShader (fast-math: max drops NaN, exp of it is not NaN) gave 0s instead.
// Params: `op::params::SoftmaxParams`.
@group(0) @binding(0) var<storage, read> src: array<S>;
@group(0) @binding(1) var<storage, read_write> dst: array<S>;
@group(0) @binding(2) var<uniform> P: Params;

const CACHE: u32 = 8u;

// max that returns a NaN operand (itself, bit for bit) instead of trusting the hardware's.
fn nmax(a: f32, b: f32) -> f32 {
    return select(max(a, b), select(a, b, is_nan(b)), is_nan(a) || is_nan(b));
}

// A row's output value, or the row's NaN maximum when it has one.
fn out(v: f32, rmax: f32) -> S {
    return S(select(v, rmax, is_nan(rmax)));
}

var<workgroup> rmx: array<f32, WG>;
var<workgroup> rsum: array<f32, WG>;

const FAN: u32 = 16u;

// Two-level folds (FAN threads fold FAN slots each, then every thread folds their FAN results):
// two barriers per statistic where a halving tree takes eight, which lavapipe runs as switches
// between the workgroup's invocations. Separate arrays for max and sum need no barrier between.
fn row_max(t: u32) -> f32 {
    workgroupBarrier();
    if (t < WG / FAN) {
        var v = rmx[t * FAN];
        for (var i = 1u; i < FAN; i++) {
            v = nmax(v, rmx[t * FAN + i]);
        }
        rmx[t * FAN] = v;
    }
    workgroupBarrier();
    var v = rmx[0];
    for (var i = FAN; i < WG; i += FAN) {
        v = nmax(v, rmx[i]);
    }
    return v;
}

fn row_sum(t: u32) -> f32 {
    workgroupBarrier();
    if (t < WG / FAN) {
        var v = rsum[t * FAN];
        for (var i = 1u; i < FAN; i++) {
            v += rsum[t * FAN + i];
        }
        rsum[t * FAN] = v;
    }
    workgroupBarrier();
    var v = rsum[0];
    for (var i = FAN; i < WG; i += FAN) {
        v += rsum[i];
    }
    return v;
}

fn serial_row(row: u32) {
    let k = p(P_K);
    let base = p(P_OFFSET) + row * k;
    var mx = bitcast<f32>(0xff7fffffu);
    for (var j = 0u; j < k; j++) {
        mx = nmax(mx, f32(src[base + j]));
    }
    var sum = 0.0;
    for (var j = 0u; j < k; j++) {
        sum += exp(f32(src[base + j]) - mx);
    }
    let inv = 1.0 / sum;
    let lt = log(sum);
    for (var j = 0u; j < k; j++) {
        let y = f32(src[base + j]) - mx;
        dst[row * k + j] = out(select(exp(y) * inv, y - lt, LOG), mx);
    }
}

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    let m = p(P_ROWS);
    let k = p(P_K);
    if (p(P_SERIAL) == 1u) {
        let r = (wid.x + wid.y * nwg.x) * WG + lid.x;
        if (r < m) {
            serial_row(r);
        }
        return;
    }
    let row = wid.x + wid.y * nwg.x;
    let live = row < m;
    let t = lid.x;
    let base = p(P_OFFSET) + row * k;
    let rest = t + CACHE * WG;
    var xs: array<f32, CACHE>;
    var mx = bitcast<f32>(0xff7fffffu); // -f32::MAX, exactly (Tint rejects -3.4028235e38 as out of range)
    if (live) {
        for (var i = 0u; i < CACHE; i++) {
            let j = t + i * WG;
            if (j < k) {
                xs[i] = f32(src[base + j]);
                mx = nmax(mx, xs[i]);
            }
        }
        for (var j = rest; j < k; j += WG) {
            mx = nmax(mx, f32(src[base + j]));
        }
    }
    rmx[t] = mx;
    let rmax = row_max(t);
    var sum = 0.0;
    if (live) {
        for (var i = 0u; i < CACHE; i++) {
            if (t + i * WG < k) {
                let e = exp(xs[i] - rmax);
                sum += e;
                // Softmax keeps the exponential; log-softmax keeps x.
                if (!LOG) {
                    xs[i] = e;
                }
            }
        }
        for (var j = rest; j < k; j += WG) {
            sum += exp(f32(src[base + j]) - rmax);
        }
    }
    rsum[t] = sum;
    let total = row_sum(t);
    let inv = 1.0 / total;
    let lt = log(total);
    if (live) {
        for (var i = 0u; i < CACHE; i++) {
            let j = t + i * WG;
            if (j < k) {
                dst[row * k + j] = out(select(xs[i] * inv, xs[i] - rmax - lt, LOG), rmax);
            }
        }
        for (var j = rest; j < k; j += WG) {
            let y = f32(src[base + j]) - rmax;
            dst[row * k + j] = out(select(exp(y) * inv, y - lt, LOG), rmax);
        }
    }
}
