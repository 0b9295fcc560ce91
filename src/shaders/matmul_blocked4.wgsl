// matmul_blocked.wgsl's register blocking with vec4 loads and stores of B and C, for a B whose
// rows are contiguous runs of whole vec4s (MatmulArgs::vec4_aligned: row-major, n % 4 == 0,
// 4-aligned offsets and strides). Each 16x16 workgroup computes a 256x128 tile of C (fewer rows
// and more columns for a short product, row_blocks), each thread a 16x8 block: per step of the inner dim 16 scalar loads of A, 2 vec4 loads of B and 128 FMAs
// (the scalar kernel: 12 loads for 32 FMAs). Software adapters run an invocation per SIMD lane,
// so each load with a per-lane address is a gather; measured on lavapipe against the 8x4 scalar
// kernel in one process, 8x4 with vec4 B ran 1.1x, 8x8 1.4x, 16x8 1.4-1.6x, 4x4 0.9x, 32x8 and
// 24x8 no better (register spills), A in vec4s along k 1.0x.
// Rows past the edge read the last valid one and are not written; with n % 4 == 0 a column vec4
// is wholly inside or wholly outside. Params: `op::params::MatmulParams`.
@group(0) @binding(0) var<storage, read> a: array<S>;
@group(0) @binding(1) var<storage, read> b: array<vec4<S>>;
@group(0) @binding(2) var<storage, read_write> c: array<vec4<S>>;
@group(0) @binding(3) var<uniform> P: Params;

@compute @workgroup_size(16, 16)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    let m = p(P_M);
    let n = p(P_N);
    let k = p(P_K);
    let batch = wid.z + p(P_FIRST_BATCH);
    let abase = p(P_A_OFFSET) + batch * p(P_A_BATCH_STRIDE);
    let bbase = (p(P_B_OFFSET) + batch * p(P_B_BATCH_STRIDE)) / 4u;
    let ars = p(P_A_ROW_STRIDE);
    let acs = p(P_A_COL_STRIDE);
    let brs = p(P_B_ROW_STRIDE) / 4u;
    // row_blocks: 16-row blocks per workgroup (1, 2, 4, 8 or 16). A short product keeps fewer rows
    // of threads and gives the rest further columns, instead of threads that compute clamped
    // rows they never write (M = 32 left 7/8 of them so: 1.6 GFLOP/s on lavapipe).
    let rg = p(P_ROW_BLOCKS);
    let r0 = wid.y * rg * 16u + (lid.y % rg) * 16u;
    let c0 = wid.x * (2048u / rg) + (lid.x + 16u * (lid.y / rg)) * 8u;
    var ar0 = min(r0 + 0u, m - 1u) * ars + abase;
    var ar1 = min(r0 + 1u, m - 1u) * ars + abase;
    var ar2 = min(r0 + 2u, m - 1u) * ars + abase;
    var ar3 = min(r0 + 3u, m - 1u) * ars + abase;
    var ar4 = min(r0 + 4u, m - 1u) * ars + abase;
    var ar5 = min(r0 + 5u, m - 1u) * ars + abase;
    var ar6 = min(r0 + 6u, m - 1u) * ars + abase;
    var ar7 = min(r0 + 7u, m - 1u) * ars + abase;
    var ar8 = min(r0 + 8u, m - 1u) * ars + abase;
    var ar9 = min(r0 + 9u, m - 1u) * ars + abase;
    var ar10 = min(r0 + 10u, m - 1u) * ars + abase;
    var ar11 = min(r0 + 11u, m - 1u) * ars + abase;
    var ar12 = min(r0 + 12u, m - 1u) * ars + abase;
    var ar13 = min(r0 + 13u, m - 1u) * ars + abase;
    var ar14 = min(r0 + 14u, m - 1u) * ars + abase;
    var ar15 = min(r0 + 15u, m - 1u) * ars + abase;
    var bi0 = min(c0 + 0u, n - 4u) / 4u + bbase;
    var bi1 = min(c0 + 4u, n - 4u) / 4u + bbase;
    var acc0_0 = vec4<A>();
    var acc0_1 = vec4<A>();
    var acc1_0 = vec4<A>();
    var acc1_1 = vec4<A>();
    var acc2_0 = vec4<A>();
    var acc2_1 = vec4<A>();
    var acc3_0 = vec4<A>();
    var acc3_1 = vec4<A>();
    var acc4_0 = vec4<A>();
    var acc4_1 = vec4<A>();
    var acc5_0 = vec4<A>();
    var acc5_1 = vec4<A>();
    var acc6_0 = vec4<A>();
    var acc6_1 = vec4<A>();
    var acc7_0 = vec4<A>();
    var acc7_1 = vec4<A>();
    var acc8_0 = vec4<A>();
    var acc8_1 = vec4<A>();
    var acc9_0 = vec4<A>();
    var acc9_1 = vec4<A>();
    var acc10_0 = vec4<A>();
    var acc10_1 = vec4<A>();
    var acc11_0 = vec4<A>();
    var acc11_1 = vec4<A>();
    var acc12_0 = vec4<A>();
    var acc12_1 = vec4<A>();
    var acc13_0 = vec4<A>();
    var acc13_1 = vec4<A>();
    var acc14_0 = vec4<A>();
    var acc14_1 = vec4<A>();
    var acc15_0 = vec4<A>();
    var acc15_1 = vec4<A>();
    for (var kk = 0u; kk < k; kk++) {
        let b0 = vec4<A>(b[bi0]);
        let b1 = vec4<A>(b[bi1]);
        let x0 = A(a[ar0]);
        acc0_0 += x0 * b0;
        acc0_1 += x0 * b1;
        let x1 = A(a[ar1]);
        acc1_0 += x1 * b0;
        acc1_1 += x1 * b1;
        let x2 = A(a[ar2]);
        acc2_0 += x2 * b0;
        acc2_1 += x2 * b1;
        let x3 = A(a[ar3]);
        acc3_0 += x3 * b0;
        acc3_1 += x3 * b1;
        let x4 = A(a[ar4]);
        acc4_0 += x4 * b0;
        acc4_1 += x4 * b1;
        let x5 = A(a[ar5]);
        acc5_0 += x5 * b0;
        acc5_1 += x5 * b1;
        let x6 = A(a[ar6]);
        acc6_0 += x6 * b0;
        acc6_1 += x6 * b1;
        let x7 = A(a[ar7]);
        acc7_0 += x7 * b0;
        acc7_1 += x7 * b1;
        let x8 = A(a[ar8]);
        acc8_0 += x8 * b0;
        acc8_1 += x8 * b1;
        let x9 = A(a[ar9]);
        acc9_0 += x9 * b0;
        acc9_1 += x9 * b1;
        let x10 = A(a[ar10]);
        acc10_0 += x10 * b0;
        acc10_1 += x10 * b1;
        let x11 = A(a[ar11]);
        acc11_0 += x11 * b0;
        acc11_1 += x11 * b1;
        let x12 = A(a[ar12]);
        acc12_0 += x12 * b0;
        acc12_1 += x12 * b1;
        let x13 = A(a[ar13]);
        acc13_0 += x13 * b0;
        acc13_1 += x13 * b1;
        let x14 = A(a[ar14]);
        acc14_0 += x14 * b0;
        acc14_1 += x14 * b1;
        let x15 = A(a[ar15]);
        acc15_0 += x15 * b0;
        acc15_1 += x15 * b1;
        ar0 += acs;
        ar1 += acs;
        ar2 += acs;
        ar3 += acs;
        ar4 += acs;
        ar5 += acs;
        ar6 += acs;
        ar7 += acs;
        ar8 += acs;
        ar9 += acs;
        ar10 += acs;
        ar11 += acs;
        ar12 += acs;
        ar13 += acs;
        ar14 += acs;
        ar15 += acs;
        bi0 += brs;
        bi1 += brs;
    }
    let crow = (batch * m * n + c0) / 4u;
    let n4 = n / 4u;
    if (r0 + 0u < m) {
        if (c0 + 0u < n) { c[crow + (r0 + 0u) * n4 + 0u] = vec4<S>(epi4(acc0_0, c0)); }
        if (c0 + 4u < n) { c[crow + (r0 + 0u) * n4 + 1u] = vec4<S>(epi4(acc0_1, c0 + 4u)); }
    }
    if (r0 + 1u < m) {
        if (c0 + 0u < n) { c[crow + (r0 + 1u) * n4 + 0u] = vec4<S>(epi4(acc1_0, c0)); }
        if (c0 + 4u < n) { c[crow + (r0 + 1u) * n4 + 1u] = vec4<S>(epi4(acc1_1, c0 + 4u)); }
    }
    if (r0 + 2u < m) {
        if (c0 + 0u < n) { c[crow + (r0 + 2u) * n4 + 0u] = vec4<S>(epi4(acc2_0, c0)); }
        if (c0 + 4u < n) { c[crow + (r0 + 2u) * n4 + 1u] = vec4<S>(epi4(acc2_1, c0 + 4u)); }
    }
    if (r0 + 3u < m) {
        if (c0 + 0u < n) { c[crow + (r0 + 3u) * n4 + 0u] = vec4<S>(epi4(acc3_0, c0)); }
        if (c0 + 4u < n) { c[crow + (r0 + 3u) * n4 + 1u] = vec4<S>(epi4(acc3_1, c0 + 4u)); }
    }
    if (r0 + 4u < m) {
        if (c0 + 0u < n) { c[crow + (r0 + 4u) * n4 + 0u] = vec4<S>(epi4(acc4_0, c0)); }
        if (c0 + 4u < n) { c[crow + (r0 + 4u) * n4 + 1u] = vec4<S>(epi4(acc4_1, c0 + 4u)); }
    }
    if (r0 + 5u < m) {
        if (c0 + 0u < n) { c[crow + (r0 + 5u) * n4 + 0u] = vec4<S>(epi4(acc5_0, c0)); }
        if (c0 + 4u < n) { c[crow + (r0 + 5u) * n4 + 1u] = vec4<S>(epi4(acc5_1, c0 + 4u)); }
    }
    if (r0 + 6u < m) {
        if (c0 + 0u < n) { c[crow + (r0 + 6u) * n4 + 0u] = vec4<S>(epi4(acc6_0, c0)); }
        if (c0 + 4u < n) { c[crow + (r0 + 6u) * n4 + 1u] = vec4<S>(epi4(acc6_1, c0 + 4u)); }
    }
    if (r0 + 7u < m) {
        if (c0 + 0u < n) { c[crow + (r0 + 7u) * n4 + 0u] = vec4<S>(epi4(acc7_0, c0)); }
        if (c0 + 4u < n) { c[crow + (r0 + 7u) * n4 + 1u] = vec4<S>(epi4(acc7_1, c0 + 4u)); }
    }
    if (r0 + 8u < m) {
        if (c0 + 0u < n) { c[crow + (r0 + 8u) * n4 + 0u] = vec4<S>(epi4(acc8_0, c0)); }
        if (c0 + 4u < n) { c[crow + (r0 + 8u) * n4 + 1u] = vec4<S>(epi4(acc8_1, c0 + 4u)); }
    }
    if (r0 + 9u < m) {
        if (c0 + 0u < n) { c[crow + (r0 + 9u) * n4 + 0u] = vec4<S>(epi4(acc9_0, c0)); }
        if (c0 + 4u < n) { c[crow + (r0 + 9u) * n4 + 1u] = vec4<S>(epi4(acc9_1, c0 + 4u)); }
    }
    if (r0 + 10u < m) {
        if (c0 + 0u < n) { c[crow + (r0 + 10u) * n4 + 0u] = vec4<S>(epi4(acc10_0, c0)); }
        if (c0 + 4u < n) { c[crow + (r0 + 10u) * n4 + 1u] = vec4<S>(epi4(acc10_1, c0 + 4u)); }
    }
    if (r0 + 11u < m) {
        if (c0 + 0u < n) { c[crow + (r0 + 11u) * n4 + 0u] = vec4<S>(epi4(acc11_0, c0)); }
        if (c0 + 4u < n) { c[crow + (r0 + 11u) * n4 + 1u] = vec4<S>(epi4(acc11_1, c0 + 4u)); }
    }
    if (r0 + 12u < m) {
        if (c0 + 0u < n) { c[crow + (r0 + 12u) * n4 + 0u] = vec4<S>(epi4(acc12_0, c0)); }
        if (c0 + 4u < n) { c[crow + (r0 + 12u) * n4 + 1u] = vec4<S>(epi4(acc12_1, c0 + 4u)); }
    }
    if (r0 + 13u < m) {
        if (c0 + 0u < n) { c[crow + (r0 + 13u) * n4 + 0u] = vec4<S>(epi4(acc13_0, c0)); }
        if (c0 + 4u < n) { c[crow + (r0 + 13u) * n4 + 1u] = vec4<S>(epi4(acc13_1, c0 + 4u)); }
    }
    if (r0 + 14u < m) {
        if (c0 + 0u < n) { c[crow + (r0 + 14u) * n4 + 0u] = vec4<S>(epi4(acc14_0, c0)); }
        if (c0 + 4u < n) { c[crow + (r0 + 14u) * n4 + 1u] = vec4<S>(epi4(acc14_1, c0 + 4u)); }
    }
    if (r0 + 15u < m) {
        if (c0 + 0u < n) { c[crow + (r0 + 15u) * n4 + 0u] = vec4<S>(epi4(acc15_0, c0)); }
        if (c0 + 4u < n) { c[crow + (r0 + 15u) * n4 + 1u] = vec4<S>(epi4(acc15_1, c0 + 4u)); }
    }
}
