// Tiled batched matmul: each 16x16 workgroup computes a 64x64 tile of C, each thread a 4x4
// block, staging 64x16 of A and 16x64 of B in workgroup memory per step. Operands are read
// through row/column strides, so transposed views need no copy.
// Params: `op::params::MatmulParams`.
@group(0) @binding(0) var<storage, read> a: array<S>;
@group(0) @binding(1) var<storage, read> b: array<S>;
@group(0) @binding(2) var<storage, read_write> c: array<S>;
@group(0) @binding(3) var<uniform> P: Params;

const BM: u32 = 64u;
const BN: u32 = 64u;
const BK: u32 = 16u;

// Tiles stored as vec4: As[kk * 16 + r] holds rows 4r..4r+3 of column kk of the A tile;
// Bs[kk * 16 + c] holds columns 4c..4c+3 of row kk of the B tile. The inner loop then reads two
// vec4s per step and accumulates with vector FMAs. Each thread stages one whole vec4 of each:
// invocations writing different components of one vector in workgroup memory race where a
// component store is a read-modify-write of the vector (Metal, D3D: gpuweb#2112).
var<workgroup> As: array<vec4<A>, 256>;
var<workgroup> Bs: array<vec4<A>, 256>;

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
    let row0 = wid.y * BM;
    let col0 = wid.x * BN;
    let tid = lid.y * 16u + lid.x;
    var acc0 = vec4<A>();
    var acc1 = vec4<A>();
    var acc2 = vec4<A>();
    var acc3 = vec4<A>();
    // This thread's share of each tile: rows 4 * (tid / 16).. of A at k0 + tid % 16, and
    // columns 4 * (tid % 16).. of B at k0 + tid / 16.
    let ar = row0 + (tid / BK) * 4u;
    let bc = col0 + (tid % 16u) * 4u;
    for (var k0 = 0u; k0 < k; k0 += BK) {
        let gk = k0 + tid % BK;
        let a0 = at_a(ar, gk, m, k, abase, ars, acs);
        let a1 = at_a(ar + 1u, gk, m, k, abase, ars, acs);
        let a2 = at_a(ar + 2u, gk, m, k, abase, ars, acs);
        let a3 = at_a(ar + 3u, gk, m, k, abase, ars, acs);
        As[(tid % BK) * 16u + tid / BK] = vec4<A>(a0, a1, a2, a3);
        let gkb = k0 + tid / 16u;
        let b0 = at_b(gkb, bc, k, n, bbase, brs, bcs);
        let b1 = at_b(gkb, bc + 1u, k, n, bbase, brs, bcs);
        let b2 = at_b(gkb, bc + 2u, k, n, bbase, brs, bcs);
        let b3 = at_b(gkb, bc + 3u, k, n, bbase, brs, bcs);
        Bs[(tid / 16u) * 16u + tid % 16u] = vec4<A>(b0, b1, b2, b3);
        workgroupBarrier();
        for (var kk = 0u; kk < BK; kk++) {
            let av = As[kk * 16u + lid.y];
            let bv = Bs[kk * 16u + lid.x];
            acc0 += av.x * bv;
            acc1 += av.y * bv;
            acc2 += av.z * bv;
            acc3 += av.w * bv;
        }
        workgroupBarrier();
    }
    let cbase = batch * m * n;
    let rows = array<vec4<A>, 4>(acc0, acc1, acc2, acc3);
    for (var i = 0u; i < 4u; i++) {
        let gi = row0 + lid.y * 4u + i;
        for (var j = 0u; j < 4u; j++) {
            let gj = col0 + lid.x * 4u + j;
            if (gi < m && gj < n) {
                c[cbase + gi * n + gj] = S(epi(rows[i][j], gj));
            }
        }
    }
}

// Element (i, kk) of A, or 0 past the product's edges.
fn at_a(i: u32, kk: u32, m: u32, k: u32, base: u32, rs: u32, cs: u32) -> A {
    if (i < m && kk < k) {
        return A(a[base + i * rs + kk * cs]);
    }
    return A(0);
}

// Element (kk, j) of B, or 0 past the product's edges.
fn at_b(kk: u32, j: u32, k: u32, n: u32, base: u32, rs: u32, cs: u32) -> A {
    if (kk < k && j < n) {
        return A(b[base + kk * rs + j * cs]);
    }
    return A(0);
}
