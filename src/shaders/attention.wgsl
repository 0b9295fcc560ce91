// Fused attention (op::attention), one pass per program (PART, from the prelude): a thread per
// (row, chunk of CHUNK output columns), looping over the other side's rows; no [heads, L, S]
// tensor. Forward: PART 0 writes each query row's log-sum-exp (online max and sum), PART 1 the
// output from it. Backward: PART 2 writes D_i = dO_i . O_i, PART 3 the query's gradient (a
// thread per query row and chunk), PART 4 and 5 the key's and the value's (a thread per key row
// and chunk, over the queries that see that key). Each pass reads what the earlier ones wrote
// through the one read-write binding (a buffer may not be bound writable and readable at once).
// Masked scores are -inf (the mask's own, or past the causal diagonal, which the loops skip);
// a row with nothing to attend to has log-sum-exp -inf and zero output and gradients.
// The bindings and `neg_inf`, `masked_value`, `row_at`, `keep` and `key_end` are
// attention_common.wgsl's, in the prelude. Params: `op::params::AttentionParams`.

const CHUNK: u32 = 32u;

// scale * q_i . k_j + mask_ij for head n.
fn score(n: u32, i: u32, j: u32) -> f32 {
    let qa = row_at(P_Q, n, i);
    let ka = row_at(P_K, n, j);
    var acc = 0.0;
    for (var c = 0u; c < p(P_E); c++) {
        acc += q[qa + c] * k[ka + c];
    }
    var x = acc * bitcast<f32>(p(P_SCALE));
    if (p(P_MASKED) == 1u) {
        x += mask[row_at(P_M, n, i) + j * p(P_M + 4u)];
    }
    return x;
}

// dO_i . v_j of head n.
fn dot_grad_value(n: u32, i: u32, j: u32) -> f32 {
    let ga = row_at(P_G, n, i);
    let va = row_at(P_V, n, j);
    var acc = 0.0;
    for (var c = 0u; c < p(P_EV); c++) {
        acc += dout[ga + c] * v[va + c];
    }
    return acc;
}

fn lse_pass(r: u32) {
    let n = r / p(P_L);
    let i = r % p(P_L);
    var mx = neg_inf();
    var sum = 0.0;
    var any = false;
    for (var j = 0u; j < key_end(i); j++) {
        let x = score(n, i, j);
        if (masked_value(x)) {
            continue;
        }
        if (!any || x > mx) {
            sum = select(0.0, sum * exp(mx - x), any) + 1.0;
            mx = x;
            any = true;
        } else {
            sum += exp(x - mx);
        }
    }
    out[p(P_LSE_AT) + r] = select(neg_inf(), mx + log(sum), any);
}

fn out_pass(r: u32, c0: u32, width: u32) {
    let n = r / p(P_L);
    let i = r % p(P_L);
    let lse = out[p(P_LSE_AT) + r];
    var acc: array<f32, CHUNK>;
    if (!masked_value(lse)) {
        for (var j = 0u; j < key_end(i); j++) {
            let x = score(n, i, j);
            if (masked_value(x)) {
                continue;
            }
            let w = exp(min(x - lse, 0.0)) * keep(n, i, j);
            let va = row_at(P_V, n, j) + c0;
            for (var c = 0u; c < width; c++) {
                acc[c] += w * v[va + c];
            }
        }
    }
    let at = row_at(P_O, n, i) + c0;
    for (var c = 0u; c < width; c++) {
        out[at + c] = acc[c];
    }
}

fn delta_pass(r: u32) {
    let n = r / p(P_L);
    let i = r % p(P_L);
    let ga = row_at(P_G, n, i);
    let oa = row_at(P_O, n, i);
    var acc = 0.0;
    for (var c = 0u; c < p(P_EV); c++) {
        acc += dout[ga + c] * saved[oa + c];
    }
    out[p(P_D_AT) + r] = acc;
}

fn grad_q_pass(r: u32, c0: u32, width: u32) {
    let n = r / p(P_L);
    let i = r % p(P_L);
    let lse = saved[p(P_LSE_AT) + r];
    let d = out[p(P_D_AT) + r];
    var acc: array<f32, CHUNK>;
    if (!masked_value(lse)) {
        for (var j = 0u; j < key_end(i); j++) {
            let x = score(n, i, j);
            if (masked_value(x)) {
                continue;
            }
            let pr = exp(min(x - lse, 0.0));
            let ds = pr * (dot_grad_value(n, i, j) * keep(n, i, j) - d);
            let ka = row_at(P_K, n, j) + c0;
            for (var c = 0u; c < width; c++) {
                acc[c] += ds * k[ka + c];
            }
        }
    }
    let scale = bitcast<f32>(p(P_SCALE));
    let at = row_at(P_DQ, n, i) + c0;
    for (var c = 0u; c < width; c++) {
        out[at + c] = acc[c] * scale;
    }
}

// The key's (PART 4) or the value's (PART 5) gradient for key row r = n * S + j.
fn grad_kv_pass(r: u32, c0: u32, width: u32, key: bool) {
    let n = r / p(P_S);
    let j = r % p(P_S);
    var acc: array<f32, CHUNK>;
    // Causal: only queries i >= j see key j.
    let first = select(0u, j, p(P_CAUSAL) == 1u);
    for (var i = first; i < p(P_L); i++) {
        let lse = saved[p(P_LSE_AT) + n * p(P_L) + i];
        if (masked_value(lse)) {
            continue;
        }
        let x = score(n, i, j);
        if (masked_value(x)) {
            continue;
        }
        let pr = exp(min(x - lse, 0.0));
        if (key) {
            let ds = pr * (dot_grad_value(n, i, j) * keep(n, i, j) - out[p(P_D_AT) + n * p(P_L) + i]);
            let qa = row_at(P_Q, n, i) + c0;
            for (var c = 0u; c < width; c++) {
                acc[c] += ds * q[qa + c];
            }
        } else {
            let w = pr * keep(n, i, j);
            let ga = row_at(P_G, n, i) + c0;
            for (var c = 0u; c < width; c++) {
                acc[c] += w * dout[ga + c];
            }
        }
    }
    if (key) {
        let scale = bitcast<f32>(p(P_SCALE));
        let at = row_at(P_DK, n, j) + c0;
        for (var c = 0u; c < width; c++) {
            out[at + c] = acc[c] * scale;
        }
    } else {
        let at = row_at(P_DV, n, j) + c0;
        for (var c = 0u; c < width; c++) {
            out[at + c] = acc[c];
        }
    }
}

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let t = gid.x + gid.y * nwg.x * WG;
    if (t >= p(P_THREADS)) {
        return;
    }
    let chunks = p(P_CHUNKS);
    let r = t / chunks;
    let c0 = (t % chunks) * CHUNK;
    // The width of this chunk of the pass's output row.
    let cols = select(p(P_EV), p(P_E), PART == 3u || PART == 4u);
    let width = min(CHUNK, cols - min(c0, cols));
    switch PART {
        case 0u: { lse_pass(r); }
        case 1u: { out_pass(r, c0, width); }
        case 2u: { delta_pass(r); }
        case 3u: { grad_q_pass(r, c0, width); }
        case 4u: { grad_kv_pass(r, c0, width, true); }
        default: { grad_kv_pass(r, c0, width, false); }
    }
}
