// Binary family with broadcasting: out[i] = op(a[strided], b[strided]), over the output's
// coalesced dims (params::binary merges the dims every operand walks as one).
// Params: 0 numel, 1 rank, 2 a offset, 3 b offset, 4..12 shape, 12..20 a strides,
// 20..28 b strides, 28 mode: 1 when a and b are contiguous with the output's shape, 2 for one
// thread per row of a rank-2 [rows, cols] output with few columns (dispatched over rows), else 0.
@group(0) @binding(0) var<storage, read> a: array<S>;
@group(0) @binding(1) var<storage, read> b: array<S>;
@group(0) @binding(2) var<storage, read_write> out: array<D>;
@group(0) @binding(3) var<uniform> P: Params;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = gid.x + gid.y * nwg.x * WG;
    let mode = p(28u);
    if (mode == 2u) {
        // `x + bias[:, None]`, `dist == ids` over [n, 8]: each thread walks its row with two
        // additions per element, where the generic walk below pays a division per dim (on the
        // CPU adapters that made [n,8] + [n,1] 8x slower than a contiguous add).
        if (i >= p(4u)) {
            return;
        }
        let cols = p(5u);
        var ao = p(2u) + i * p(12u);
        var bo = p(3u) + i * p(20u);
        let acs = p(13u);
        let bcs = p(21u);
        let o = i * cols;
        for (var j = 0u; j < cols; j++) {
            out[o + j] = op(a[ao], b[bo]);
            ao += acs;
            bo += bcs;
        }
        return;
    }
    if (i >= p(0u)) {
        return;
    }
    var ao = p(2u);
    var bo = p(3u);
    if (mode == 1u) {
        ao += i;
        bo += i;
    } else {
        // The prelude's walk over the rank (see KernelKey::Map's RANK).
        let o = walk(i, select(p(1u), RANK, RANK != 0u), vec3<u32>(12u, 20u, 20u));
        ao += o.x;
        bo += o.y;
    }
    out[i] = op(a[ao], b[bo]);
}
