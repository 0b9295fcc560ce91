// The fused optimizer update (op/optim.rs, whose `OptimStep::apply` this spells statement for
// statement): one thread per element reads the parameter, its gradient and the old state and
// writes the new parameter and state. The prelude declares the bindings of the variant (KIND 0
// SGD, 1 SGD with momentum, 2 Adam) and `s0_in`/`s1_in`/`store`.
// Params: `op::params::OptimParams`.
const FIRST: u32 = 1u;
const DECAY: u32 = 2u;
const VARIANT: u32 = 4u;

fn s(k: u32) -> f32 {
    return bitcast<f32>(p(P_SCALARS + k));
}

fn has(f: u32) -> bool {
    return (p(P_FLAGS) & f) != 0u;
}

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = gid.x + gid.y * nwg.x * WG;
    if (i >= p(P_N)) {
        return;
    }
    var w = p_in[p(P_OFFSETS) + i];
    var g = g_in[p(P_OFFSETS + 1u) + i];
    if (KIND < 2u) {
        if (has(DECAY)) {
            g = g + w * s(0u);
        }
        if (KIND == 0u) {
            store(i, w - g * s(3u), 0.0, 0.0);
            return;
        }
        var b = g;
        if (!has(FIRST)) {
            b = s0_in(i) * s(1u) + g * s(2u);
        }
        var step = b;
        if (has(VARIANT)) {
            step = g + b * s(1u);
        }
        store(i, w - step * s(3u), b, 0.0);
        return;
    }
    if (has(DECAY)) {
        if (has(VARIANT)) {
            w = w * s(0u);
        } else {
            g = g + w * s(0u);
        }
    }
    var m0 = 0.0;
    var v0 = 0.0;
    if (!has(FIRST)) {
        m0 = s0_in(i);
        v0 = s1_in(i);
    }
    let m = m0 + (g - m0) * s(1u);
    let v = v0 * s(2u) + (g * g) * s(3u);
    let denom = sqrt(v) / s(4u) + s(5u);
    store(i, w - (m / denom) * s(6u), m, v);
}
