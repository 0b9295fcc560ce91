// Softmax / log-softmax of each row of a contiguous [m, k] input, one workgroup per row:
// max, then sum of exp(x - max), then the output. Params: 0 m, 1 k, 2 src offset.
@group(0) @binding(0) var<storage, read> src: array<S>;
@group(0) @binding(1) var<storage, read_write> dst: array<S>;
@group(0) @binding(2) var<uniform> P: Params;

var<workgroup> red: array<f32, WG>;

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    let m = p(0u);
    let k = p(1u);
    let row = wid.x + wid.y * nwg.x;
    let live = row < m;
    let t = lid.x;
    let base = p(2u) + row * k;
    var mx = bitcast<f32>(0xff7fffffu); // -f32::MAX, exactly (Tint rejects -3.4028235e38 as out of range)
    if (live) {
        for (var j = t; j < k; j += WG) {
            mx = max(mx, f32(src[base + j]));
        }
    }
    red[t] = mx;
    workgroupBarrier();
    for (var s = WG / 2u; s > 0u; s = s / 2u) {
        if (t < s) {
            red[t] = max(red[t], red[t + s]);
        }
        workgroupBarrier();
    }
    let rmax = red[0];
    workgroupBarrier();
    var sum = 0.0;
    if (live) {
        for (var j = t; j < k; j += WG) {
            sum += exp(f32(src[base + j]) - rmax);
        }
    }
    red[t] = sum;
    workgroupBarrier();
    for (var s = WG / 2u; s > 0u; s = s / 2u) {
        if (t < s) {
            red[t] = red[t] + red[t + s];
        }
        workgroupBarrier();
    }
    let total = red[0];
    if (live) {
        for (var j = t; j < k; j += WG) {
            let y = f32(src[base + j]) - rmax;
            dst[row * k + j] = S(select(exp(y) / total, y - log(total), LOG));
        }
    }
}
