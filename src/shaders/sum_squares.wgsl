// The sum of squares of an f32 tensor (op::fused::sum_squares), two deterministic stages (PART,
// from the prelude): PART 0, a workgroup per chunk of chunk_len elements writes its partial sum
// to scratch (a single chunk's straight to out, and there is no PART 1); PART 1, one workgroup
// adds the chunks' partials (each square rounded to f32 before
// it is added, as square-then-sum rounds it, unless the driver contracts the two into an fma).
// `workgroup_sums` is in the prelude.
// Params: `op::fused::sum_squares::SumSquaresParams`.
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@group(0) @binding(2) var<storage, read_write> scratch: array<f32>;
@group(0) @binding(3) var<uniform> P: Params;

@compute @workgroup_size(WG)
fn main(
    @builtin(local_invocation_index) t: u32,
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    if (PART == 0u) {
        // Chunks numbered over a 2-D grid, striding past it.
        for (var c = wid.x + wid.y * nwg.x; c < p(P_CHUNKS); c += nwg.x * nwg.y) {
            let end = min((c + 1u) * p(P_CHUNK_LEN), p(P_NUMEL));
            var acc = 0.0;
            for (var i = c * p(P_CHUNK_LEN) + t; i < end; i += WG) {
                let v = x[p(P_SRC_OFFSET) + i];
                acc += v * v;
            }
            let total = workgroup_sums(acc, 0.0, t).x;
            if (t == 0u && p(P_CHUNKS) == 1u) {
                out[0] = total;
            } else if (t == 0u) {
                scratch[c] = total;
            }
        }
        return;
    }
    if (wid.x + wid.y > 0u) {
        return;
    }
    var acc = 0.0;
    for (var c = t; c < p(P_CHUNKS); c += WG) {
        acc += scratch[c];
    }
    let total = workgroup_sums(acc, 0.0, t).x;
    if (t == 0u) {
        out[0] = total;
    }
}
