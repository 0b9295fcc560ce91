// The bindings and helpers of both attention programs (attention.wgsl, attention_tiled.wgsl),
// in their preludes after the parameter words and `threefry`. Each pass reads what the earlier
// ones wrote through the one read-write binding (a buffer may not be bound writable and
// readable at once).
@group(0) @binding(0) var<storage, read> q: array<f32>;
@group(0) @binding(1) var<storage, read> k: array<f32>;
@group(0) @binding(2) var<storage, read> v: array<f32>;
@group(0) @binding(3) var<storage, read> mask: array<f32>;
@group(0) @binding(4) var<storage, read> saved: array<f32>;
@group(0) @binding(5) var<storage, read> dout: array<f32>;
@group(0) @binding(6) var<storage, read_write> out: array<f32>;
@group(0) @binding(7) var<uniform> P: Params;

// -inf, made at run time: Tint refuses a constant expression whose value is infinite.
fn neg_inf() -> f32 {
    return bitcast<f32>(0xff800000u | (p(P_CAUSAL) & 0u));
}

// Whether a score or log-sum-exp stands for "masked": -inf, or below every finite score a
// float mask could mean (drivers may fold -inf arithmetic loosely).
fn masked_value(x: f32) -> bool {
    return x < -3.0e38;
}

// The first element of row `r` of head `n` of a view whose (offset, s0, s1, s2) start at word
// `at` of the parameters.
fn row_at(at: u32, n: u32, r: u32) -> u32 {
    let n2 = p(P_N2);
    return p(at) + (n / n2) * p(at + 1u) + (n % n2) * p(at + 2u) + r * p(at + 3u);
}

// Dropout's multiplier of p_ij: the kept scale, 0 where dropped, 1 without dropout.
fn keep(n: u32, i: u32, j: u32) -> f32 {
    if (p(P_DROPOUT) == 0u) {
        return 1.0;
    }
    let u = f32(threefry(p(P_KEY_LO), p(P_KEY_HI), (n * p(P_L) + i) * p(P_S) + j) >> 8u) * (1.0 / 16777216.0);
    return select(0.0, bitcast<f32>(p(P_DROP_SCALE)), u >= bitcast<f32>(p(P_DROP_P)));
}

// The keys query row i sees: 0..key_end(i).
fn key_end(i: u32) -> u32 {
    return select(p(P_S), min(i + 1u, p(P_S)), p(P_CAUSAL) == 1u);
}

