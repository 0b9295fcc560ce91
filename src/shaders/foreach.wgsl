// clip_grad_norm_'s multi-tensor kernels (op::fused::foreach) over up to five f32 tensors, each
// bound in its own slot and read from its offset; chunks of chunk_len elements, tensor t's from
// starts[t], a workgroup each (the grid strides past its size), so the tensor is uniform in a
// workgroup. PART 0: each chunk's sum of squares to scratch (a single chunk's straight to out,
// and there is no PART 1); PART 1, one workgroup adds the chunks' partials in order (each square
// rounded to f32 before it is added, as square-then-sum rounds it, unless the driver contracts
// the two into an fma). PART 2: each element times coef[coef_offset], written flat (tensor t
// after the elements of the ones before it). `workgroup_sums` is in the prelude.
// Params: `op::fused::foreach::ForeachParams`.
@group(0) @binding(0) var<storage, read> x0: array<f32>;
@group(0) @binding(1) var<storage, read> x1: array<f32>;
@group(0) @binding(2) var<storage, read> x2: array<f32>;
@group(0) @binding(3) var<storage, read> x3: array<f32>;
@group(0) @binding(4) var<storage, read> x4: array<f32>;
@group(0) @binding(5) var<storage, read> coef: array<f32>;
@group(0) @binding(6) var<storage, read_write> out: array<f32>;
@group(0) @binding(7) var<storage, read_write> scratch: array<f32>;
@group(0) @binding(8) var<uniform> P: Params;

// Element i (from its offset) of tensor t.
fn load(t: u32, i: u32) -> f32 {
    let at = p(P_OFFSETS + t) + i;
    switch t {
        case 0u: {
            return x0[at];
        }
        case 1u: {
            return x1[at];
        }
        case 2u: {
            return x2[at];
        }
        case 3u: {
            return x3[at];
        }
        default: {
            return x4[at];
        }
    }
}

@compute @workgroup_size(WG)
fn main(
    @builtin(local_invocation_index) lid: u32,
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    let count = p(P_COUNT);
    let chunks = p(P_STARTS + count);
    if (PART == 1u) {
        if (wid.x + wid.y > 0u) {
            return;
        }
        var acc = 0.0;
        for (var c = lid; c < chunks; c += WG) {
            acc += scratch[c];
        }
        let total = workgroup_sums(acc, 0.0, lid).x;
        if (lid == 0u) {
            out[0] = total;
        }
        return;
    }
    let len = p(P_CHUNK_LEN);
    // Chunks numbered over a 2-D grid, striding past it (each workgroup's loop runs the same
    // number of times, so the barriers in workgroup_sums stay uniform).
    for (var c = wid.x + wid.y * nwg.x; c < chunks; c += nwg.x * nwg.y) {
        // The chunk's tensor, and the flat output's first element of that tensor.
        var t = 0u;
        var flat = 0u;
        while (t + 1u < count && c >= p(P_STARTS + t + 1u)) {
            flat += p(P_NUMEL + t);
            t += 1u;
        }
        let first = (c - p(P_STARTS + t)) * len;
        let end = min(first + len, p(P_NUMEL + t));
        if (PART == 2u) {
            let k = coef[p(P_COEF_OFFSET)];
            for (var j = first + lid; j < end; j += WG) {
                out[flat + j] = load(t, j) * k;
            }
            continue;
        }
        var acc = 0.0;
        for (var j = first + lid; j < end; j += WG) {
            let v = load(t, j);
            acc += v * v;
        }
        let total = workgroup_sums(acc, 0.0, lid).x;
        if (lid == 0u && chunks == 1u) {
            out[0] = total;
        } else if (lid == 0u) {
            scratch[c] = total;
        }
    }
}
