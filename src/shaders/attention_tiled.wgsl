// Tiled fused attention (op::attention) for rows up to 64 wide, flash-attention style: a
// workgroup of BR threads takes BR rows of one head, a thread per row holding its row and its
// accumulators in registers, and walks the other side's rows in tiles of BC staged in
// workgroup memory, where every thread reads the same row at once (a broadcast). PART 0 is the
// forward (online softmax: the output and each query row's log-sum-exp in one pass), PART 1
// the query's gradient (a thread per query row over key tiles), PART 2 and 3 the key's and
// the value's (a thread per key row over query tiles); the backward's D_i = dO_i . O_i comes
// first from attention.wgsl's pass. Values and masking are attention.wgsl's.
// The prelude gives V (vec4s per row: 4, 8 or 16), BC and TILE (BC * V). Each line holding
// `#c` is written V times, `#c` replaced by 0..V-1 (shaders::expand_rows): rows stay in named
// registers, as a dynamically indexed register array goes to local memory on GPUs. Dot
// products sum in four lanes (one vec4 FMA a step) rather than one dependent chain.
// Bindings and helpers: attention_common.wgsl, in the prelude. Params:
// `op::params::AttentionParams`, `threads` the workgroups of the pass.

// Rows (threads) per workgroup: op::attention::TILE_ROWS.
const BR: u32 = 64u;

// The staged tiles: rows of K and V (forward, query's gradient) or of Q and dO (key's and
// value's gradients), V vec4s each, zero past the operands' widths and rows.
var<workgroup> ta: array<vec4<f32>, TILE>;
var<workgroup> tb: array<vec4<f32>, TILE>;

// vec4 c4 of the row at `a` of q, k, v or dout: its first `w` elements, zeros past them.
fn lq(a: u32, c4: u32, w: u32) -> vec4<f32> {
    let c = c4 * 4u;
    return vec4<f32>(select(0.0, q[a + c], c < w), select(0.0, q[a + c + 1u], c + 1u < w),
                     select(0.0, q[a + c + 2u], c + 2u < w), select(0.0, q[a + c + 3u], c + 3u < w));
}
fn lk(a: u32, c4: u32, w: u32) -> vec4<f32> {
    let c = c4 * 4u;
    return vec4<f32>(select(0.0, k[a + c], c < w), select(0.0, k[a + c + 1u], c + 1u < w),
                     select(0.0, k[a + c + 2u], c + 2u < w), select(0.0, k[a + c + 3u], c + 3u < w));
}
fn lv(a: u32, c4: u32, w: u32) -> vec4<f32> {
    let c = c4 * 4u;
    return vec4<f32>(select(0.0, v[a + c], c < w), select(0.0, v[a + c + 1u], c + 1u < w),
                     select(0.0, v[a + c + 2u], c + 2u < w), select(0.0, v[a + c + 3u], c + 3u < w));
}
fn lg(a: u32, c4: u32, w: u32) -> vec4<f32> {
    let c = c4 * 4u;
    return vec4<f32>(select(0.0, dout[a + c], c < w), select(0.0, dout[a + c + 1u], c + 1u < w),
                     select(0.0, dout[a + c + 2u], c + 2u < w), select(0.0, dout[a + c + 3u], c + 3u < w));
}

// Writes the first `w - 4 * c4` (up to 4) lanes of `x` at out[a + 4 * c4 ..].
fn put(a: u32, c4: u32, x: vec4<f32>, w: u32) {
    let c = c4 * 4u;
    if (c < w) { out[a + c] = x.x; }
    if (c + 1u < w) { out[a + c + 1u] = x.y; }
    if (c + 2u < w) { out[a + c + 2u] = x.z; }
    if (c + 3u < w) { out[a + c + 3u] = x.w; }
}

// Stages key and value rows j0.. of head n (forward, query's gradient).
fn stage_kv(t: u32, n: u32, j0: u32) {
    for (var u = 0u; u < TILE / BR; u++) {
        let slot = t + u * BR;
        let j = j0 + slot / V;
        var a = vec4<f32>(0.0);
        var b = vec4<f32>(0.0);
        if (j < p(P_S)) {
            a = lk(row_at(P_K, n, j), slot % V, p(P_E));
            b = lv(row_at(P_V, n, j), slot % V, p(P_EV));
        }
        ta[slot] = a;
        tb[slot] = b;
    }
}

// Stages query and output-gradient rows i0.. of head n (key's and value's gradients).
fn stage_qg(t: u32, n: u32, i0: u32) {
    for (var u = 0u; u < TILE / BR; u++) {
        let slot = t + u * BR;
        let i = i0 + slot / V;
        var a = vec4<f32>(0.0);
        var b = vec4<f32>(0.0);
        if (i < p(P_L)) {
            a = lq(row_at(P_Q, n, i), slot % V, p(P_E));
            b = lg(row_at(P_G, n, i), slot % V, p(P_EV));
        }
        ta[slot] = a;
        tb[slot] = b;
    }
}

// The mask's value at (i, j) of head n, 0 without a mask.
fn mask_at(n: u32, i: u32, j: u32) -> f32 {
    if (p(P_MASKED) == 1u) {
        return mask[row_at(P_M, n, i) + j * p(P_M + 4u)];
    }
    return 0.0;
}

fn forward(wid: u32, t: u32) {
    let tiles = (p(P_L) + BR - 1u) / BR;
    let n = wid / tiles;
    let i0 = (wid % tiles) * BR;
    let i = i0 + t;
    let valid = i < p(P_L);
    let qa = row_at(P_Q, n, min(i, p(P_L) - 1u));
    let qw = select(0u, p(P_E), valid);
    let q#c = lq(qa, #cu, qw);
    var acc#c = vec4<f32>(0.0);
    // The running max and sum of exp(x - m) over the unmasked scores so far (l = 0: none yet).
    var m = 0.0;
    var l = 0.0;
    let scale = bitcast<f32>(p(P_SCALE));
    let s = p(P_S);
    // The keys any row of this workgroup sees, and this row's.
    let wend = select(s, min(i0 + BR, s), p(P_CAUSAL) == 1u);
    let kend = select(0u, key_end(i), valid);
    for (var j0 = 0u; j0 < wend; j0 += BC) {
        workgroupBarrier();
        stage_kv(t, n, j0);
        workgroupBarrier();
        let jn = min(BC, kend - min(j0, kend));
        for (var jj = 0u; jj < jn; jj++) {
            let j = j0 + jj;
            let b = jj * V;
            var d4 = vec4<f32>(0.0);
            d4 = fma(q#c, ta[b + #cu], d4);
            let d = (d4.x + d4.y) + (d4.z + d4.w);
            let x = d * scale + mask_at(n, i, j);
            if (masked_value(x)) {
                continue;
            }
            if (l == 0.0) {
                m = x;
            } else if (x > m) {
                let corr = exp(m - x);
                l *= corr;
                acc#c *= corr;
                m = x;
            }
            let pr = exp(x - m);
            l += pr;
            let w = pr * keep(n, i, j);
            acc#c += w * tb[b + #cu];
        }
    }
    if (valid) {
        let r = n * p(P_L) + i;
        let inv = select(0.0, 1.0 / l, l > 0.0);
        put(row_at(P_O, n, i), #cu, acc#c * inv, p(P_EV));
        out[p(P_LSE_AT) + r] = select(neg_inf(), m + log(l), l > 0.0);
    }
}

fn grad_q(wid: u32, t: u32) {
    let tiles = (p(P_L) + BR - 1u) / BR;
    let n = wid / tiles;
    let i0 = (wid % tiles) * BR;
    let i = i0 + t;
    let valid = i < p(P_L);
    let il = min(i, p(P_L) - 1u);
    let r = n * p(P_L) + il;
    let qa = row_at(P_Q, n, il);
    let ga = row_at(P_G, n, il);
    let q#c = lq(qa, #cu, p(P_E));
    let g#c = lg(ga, #cu, p(P_EV));
    var acc#c = vec4<f32>(0.0);
    let lse = saved[p(P_LSE_AT) + r];
    let dd = out[p(P_D_AT) + r];
    let scale = bitcast<f32>(p(P_SCALE));
    let s = p(P_S);
    let wend = select(s, min(i0 + BR, s), p(P_CAUSAL) == 1u);
    let kend = select(0u, key_end(i), valid && !masked_value(lse));
    for (var j0 = 0u; j0 < wend; j0 += BC) {
        workgroupBarrier();
        stage_kv(t, n, j0);
        workgroupBarrier();
        let jn = min(BC, kend - min(j0, kend));
        for (var jj = 0u; jj < jn; jj++) {
            let j = j0 + jj;
            let b = jj * V;
            var d4 = vec4<f32>(0.0);
            d4 = fma(q#c, ta[b + #cu], d4);
            let d = (d4.x + d4.y) + (d4.z + d4.w);
            let x = d * scale + mask_at(n, i, j);
            if (masked_value(x)) {
                continue;
            }
            let pr = exp(min(x - lse, 0.0));
            var p4 = vec4<f32>(0.0);
            p4 = fma(g#c, tb[b + #cu], p4);
            let dp = (p4.x + p4.y) + (p4.z + p4.w);
            let ds = pr * (dp * keep(n, i, j) - dd);
            acc#c += ds * ta[b + #cu];
        }
    }
    if (valid) {
        put(row_at(P_DQ, n, il), #cu, acc#c * scale, p(P_E));
    }
}

// The key's (key = true) or the value's gradient, a thread per key row.
fn grad_kv(wid: u32, t: u32, key: bool) {
    let tiles = (p(P_S) + BR - 1u) / BR;
    let n = wid / tiles;
    let j0 = (wid % tiles) * BR;
    let j = j0 + t;
    let valid = j < p(P_S);
    let jl = min(j, p(P_S) - 1u);
    let k#c = lk(row_at(P_K, n, jl), #cu, p(P_E));
    let v#c = lv(row_at(P_V, n, jl), #cu, select(0u, p(P_EV), key));
    var acc#c = vec4<f32>(0.0);
    let scale = bitcast<f32>(p(P_SCALE));
    let causal = p(P_CAUSAL) == 1u;
    let l = p(P_L);
    // Causal: only queries i >= j see key j, so this workgroup's start at its first key.
    let first = select(0u, j0, causal);
    for (var i0 = first; i0 < l; i0 += BC) {
        workgroupBarrier();
        stage_qg(t, n, i0);
        workgroupBarrier();
        let ni = select(0u, min(BC, l - i0), valid);
        for (var ii = 0u; ii < ni; ii++) {
            let i = i0 + ii;
            if (causal && i < j) {
                continue;
            }
            let lse = saved[p(P_LSE_AT) + n * l + i];
            if (masked_value(lse)) {
                continue;
            }
            let b = ii * V;
            var d4 = vec4<f32>(0.0);
            d4 = fma(k#c, ta[b + #cu], d4);
            let d = (d4.x + d4.y) + (d4.z + d4.w);
            let x = d * scale + mask_at(n, i, j);
            if (masked_value(x)) {
                continue;
            }
            let pr = exp(min(x - lse, 0.0));
            if (key) {
                var p4 = vec4<f32>(0.0);
                p4 = fma(v#c, tb[b + #cu], p4);
                let dp = (p4.x + p4.y) + (p4.z + p4.w);
                let ds = pr * (dp * keep(n, i, j) - out[p(P_D_AT) + n * l + i]);
                acc#c += ds * ta[b + #cu];
            } else {
                let w = pr * keep(n, i, j);
                acc#c += w * tb[b + #cu];
            }
        }
    }
    if (valid) {
        if (key) {
            put(row_at(P_DK, n, j), #cu, acc#c * scale, p(P_E));
        } else {
            put(row_at(P_DV, n, j), #cu, acc#c, p(P_EV));
        }
    }
}

@compute @workgroup_size(BR)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) t: u32) {
    let wid = wg.x + wg.y * nwg.x;
    if (wid >= p(P_THREADS)) {
        return;
    }
    switch PART {
        case 0u: { forward(wid, t); }
        case 1u: { grad_q(wid, t); }
        case 2u: { grad_kv(wid, t, true); }
        default: { grad_kv(wid, t, false); }
    }
}
