// Binary family with broadcasting: out[i] = op(a[strided], b[strided]), over the output's
// coalesced dims (params::binary merges the dims every operand walks as one).
// Params: `op::params::BinaryParams`.
@group(0) @binding(0) var<storage, read> a: array<S>;
@group(0) @binding(1) var<storage, read> b: array<S>;
@group(0) @binding(2) var<storage, read_write> out: array<D>;
@group(0) @binding(3) var<uniform> P: Params;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = gid.x + gid.y * nwg.x * WG;
    let mode = p(P_MODE);
    if (mode == 2u) {
        // `x + bias[:, None]`, `dist == ids` over [n, 8]: each thread walks its row with two
        // additions per element, where the generic walk below pays a division per dim (on the
        // CPU adapters that made [n,8] + [n,1] 8x slower than a contiguous add).
        if (i >= p(P_SHAPE)) {
            return;
        }
        let cols = p(P_SHAPE + 1u);
        var ao = p(P_A_OFFSET) + i * p(P_A_STRIDES);
        var bo = p(P_B_OFFSET) + i * p(P_B_STRIDES);
        let acs = p(P_A_STRIDES + 1u);
        let bcs = p(P_B_STRIDES + 1u);
        let o = i * cols;
        for (var j = 0u; j < cols; j++) {
            out[o + j] = op(a[ao], b[bo]);
            ao += acs;
            bo += bcs;
        }
        return;
    }
    if (i >= p(P_NUMEL)) {
        return;
    }
    var ao = p(P_A_OFFSET);
    var bo = p(P_B_OFFSET);
    if (mode == 1u) {
        ao += i;
        bo += i;
    } else {
        // The prelude's walk over the rank (see KernelKey::Map's RANK).
        let o = walk(i, select(p(P_RANK), RANK, RANK != 0u), vec3<u32>(P_A_STRIDES, P_B_STRIDES, P_B_STRIDES));
        ao += o.x;
        bo += o.y;
    }
    out[i] = op(a[ao], b[bo]);
}
