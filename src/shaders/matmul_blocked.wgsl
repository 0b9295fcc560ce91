// Register-blocked matmul without workgroup memory: the tiled program for software adapters
// (lavapipe, SwiftShader, WARP). Each 16x16 workgroup computes a 128x64 tile of C, each thread
// an 8x4 block straight from the operands: per step of the inner dim 8 loads of A, 4 of B and 32
// FMAs, with no barriers. On a CPU the caches do what workgroup memory does on a GPU, and
// matmul.wgsl's two barriers per 16-deep step (which lavapipe runs as switches between the
// workgroup's invocations) made 1024^3 0.93x TF.js there; this kernel runs it at 1.5-1.7x.
// Rows and columns past the edge read the last valid one (no branch in the loop) and are not
// written. Params: `op::params::MatmulParams`.
@group(0) @binding(0) var<storage, read> a: array<S>;
@group(0) @binding(1) var<storage, read> b: array<S>;
@group(0) @binding(2) var<storage, read_write> c: array<S>;
@group(0) @binding(3) var<uniform> P: Params;

@compute @workgroup_size(16, 16)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    let m = p(P_M);
    let n = p(P_N);
    let k = p(P_K);
    let batch = wid.z + p(P_FIRST_BATCH);
    let abase = p(P_A_OFFSET) + batch * p(P_A_BATCH_STRIDE);
    let bbase = p(P_B_OFFSET) + batch * p(P_B_BATCH_STRIDE);
    let ars = p(P_A_ROW_STRIDE);
    let acs = p(P_A_COL_STRIDE);
    let brs = p(P_B_ROW_STRIDE);
    let bcs = p(P_B_COL_STRIDE);
    // row_blocks: 8-row blocks per workgroup (1, 2, 4, 8 or 16), the other threads taking further
    // columns (as matmul_blocked4.wgsl).
    let rg = p(P_ROW_BLOCKS);
    let r0 = wid.y * rg * 8u + (lid.y % rg) * 8u;
    let c0 = wid.x * (1024u / rg) + (lid.x + 16u * (lid.y / rg)) * 4u;
    // Out-of-range rows and columns read the last valid one; their results are not written.
    var ar = vec4<u32>(min(r0, m - 1u), min(r0 + 1u, m - 1u), min(r0 + 2u, m - 1u), min(r0 + 3u, m - 1u)) * ars + abase;
    var ar2 = vec4<u32>(min(r0 + 4u, m - 1u), min(r0 + 5u, m - 1u), min(r0 + 6u, m - 1u), min(r0 + 7u, m - 1u)) * ars + abase;
    var bc = vec4<u32>(min(c0, n - 1u), min(c0 + 1u, n - 1u), min(c0 + 2u, n - 1u), min(c0 + 3u, n - 1u)) * bcs + bbase;
    var acc0 = vec4<A>();
    var acc1 = vec4<A>();
    var acc2 = vec4<A>();
    var acc3 = vec4<A>();
    var acc4 = vec4<A>();
    var acc5 = vec4<A>();
    var acc6 = vec4<A>();
    var acc7 = vec4<A>();
    for (var kk = 0u; kk < k; kk++) {
        let bv = vec4<A>(A(b[bc.x]), A(b[bc.y]), A(b[bc.z]), A(b[bc.w]));
        acc0 += A(a[ar.x]) * bv;
        acc1 += A(a[ar.y]) * bv;
        acc2 += A(a[ar.z]) * bv;
        acc3 += A(a[ar.w]) * bv;
        acc4 += A(a[ar2.x]) * bv;
        acc5 += A(a[ar2.y]) * bv;
        acc6 += A(a[ar2.z]) * bv;
        acc7 += A(a[ar2.w]) * bv;
        ar += acs;
        ar2 += acs;
        bc += brs;
    }
    let cbase = batch * m * n;
    let rows = array<vec4<A>, 8>(acc0, acc1, acc2, acc3, acc4, acc5, acc6, acc7);
    for (var i = 0u; i < 8u; i++) {
        let gi = r0 + i;
        for (var j = 0u; j < 4u; j++) {
            let gj = c0 + j;
            if (gi < m && gj < n) {
                c[cbase + gi * n + gj] = S(epi(rows[i][j], gj));
            }
        }
    }
}
