// The fused optimizer update of up to 8 tensors in one dispatch (PyTorch's multi-tensor
// apply): the outputs are flat, tensor t's elements at `starts[t]..` of each; its inputs (the
// parameter, the gradient, the two states) are read from binding slots and offsets in the
// parameters, so inputs that share a buffer (parameters and states a previous multi-tensor
// step wrote, views of one flat output) take one binding between them. One thread per output
// element, in workgroups of one tensor each. `update` spells `op::optim::OptimStep::apply` statement for statement (as CUDA's
// per-tensor optim.cu does). The prelude sets KIND (0 SGD, 1 SGD with momentum, 2 Adam) and
// declares the slots `in0..`, the outputs, `load(slot, i)` and `store`.
// Params: `op::params::OptimMultiParams`.
const FIRST: u32 = 1u;
const DECAY: u32 = 2u;
const VARIANT: u32 = 4u;

fn s(k: u32) -> f32 {
    return bitcast<f32>(p(P_SCALARS + k));
}

fn has(f: u32) -> bool {
    return (p(P_FLAGS) & f) != 0u;
}

// The new parameter and states from the parameter `w`, gradient `g` and old states `s0`, `s1`
// (not read on the first step; unused outputs are 0).
fn update(w_in: f32, g_in: f32, s0: f32, s1: f32) -> vec3<f32> {
    var w = w_in;
    var g = g_in;
    if (KIND < 2u) {
        if (has(DECAY)) {
            g = g + w * s(0u);
        }
        if (KIND == 0u) {
            return vec3<f32>(w - g * s(3u), 0.0, 0.0);
        }
        var b = g;
        if (!has(FIRST)) {
            b = s0 * s(1u) + g * s(2u);
        }
        var step = b;
        if (has(VARIANT)) {
            step = g + b * s(1u);
        }
        return vec3<f32>(w - step * s(3u), b, 0.0);
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
        m0 = s0;
        v0 = s1;
    }
    let m = m0 + (g - m0) * s(1u);
    let v = v0 * s(2u) + (g * g) * s(3u);
    let denom = sqrt(v) / s(4u) + s(5u);
    return vec3<f32>(w - (m / denom) * s(6u), m, v);
}

// Elements of tensor `t` (the last one runs to `n`).
fn len(t: u32) -> u32 {
    if (t + 1u < p(P_COUNT)) {
        return p(P_STARTS + t + 1u) - p(P_STARTS + t);
    }
    return p(P_N) - p(P_STARTS + t);
}

// Each workgroup serves one tensor (tensor t's first workgroup follows the last of t - 1), so
// the tensor, its slots and so every branch on them are uniform in a workgroup: GPUs do not
// diverge, and the CPU adapters (which otherwise run every case of `load` for every lane) take
// one case.
@compute @workgroup_size(WG)
fn main(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(local_invocation_id) lid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    let w = wid.x + wid.y * nwg.x;
    var t = 0u;
    var first = 0u;
    for (var k = 0u; k + 1u < p(P_COUNT); k = k + 1u) {
        let groups = (len(k) + WG - 1u) / WG;
        if (w < first + groups) {
            break;
        }
        first = first + groups;
        t = k + 1u;
    }
    let j = (w - first) * WG + lid.x;
    if (j >= len(t)) {
        return;
    }
    let i = p(P_STARTS + t) + j;
    let slots = p(P_SLOTS + t);
    let at = P_OFFSETS + 4u * t;
    var s0 = 0.0;
    var s1 = 0.0;
    if (KIND > 0u && !has(FIRST)) {
        s0 = load((slots >> 16u) & 255u, p(at + 2u) + j);
        if (KIND > 1u) {
            s1 = load(slots >> 24u, p(at + 3u) + j);
        }
    }
    let r = update(load(slots & 255u, p(at) + j), load((slots >> 8u) & 255u, p(at + 1u) + j), s0, s1);
    store(i, r.x, r.y, r.z);
}
