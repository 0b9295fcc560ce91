// Register-tiled batched matmul for hardware GPUs: each 16x16 workgroup computes a 128x128 tile
// of C, each thread an 8x8 block held in 16 vec4 accumulators, staging 128x8 of A and 8x128 of B
// in workgroup memory per step of 8 along k. Per step a thread reads 4 vec4s of workgroup
// memory for 64 FMAs (matmul.wgsl: 2 for 16). A thread's rows are 4 adjacent rows in each half
// of the tile (ty*4.. and 64+ty*4..), its columns likewise, so the vec4 reads of a warp touch
// consecutive words. The next step's operands are loaded into registers before this step's
// products, so their latency hides behind the FMAs with one buffer of workgroup memory. Each
// thread stages a whole vec4 of each tile (`quad`, in matmul_register_common.wgsl, which the
// variant prelude appends with the stores).
// Measured on an H200 (NVIDIA's Vulkan), a first form of this kernel that kept the prefetched
// values in a struct indexed in loops ran 0.6-0.9x the 64x64 kernel: keep everything named.
// Operands are read through row/column strides (transposed views need no copy); the global
// loads walk whichever stride is 1, so a warp reads consecutive words in either layout.
// Params: `op::params::MatmulParams`.
@group(0) @binding(0) var<storage, read> a: array<S>;
@group(0) @binding(1) var<storage, read> b: array<S>;
@group(0) @binding(2) var<storage, read_write> c: array<S>;
@group(0) @binding(3) var<uniform> P: Params;

const BM: u32 = 128u;
const BN: u32 = 128u;
const BK: u32 = 8u;
// A row of a tile in workgroup memory: 32 vec4s and one of padding, so the 8 threads of a
// quarter-warp that store a vec4 each along k hit different banks (unpadded they all hit one).
const ROW: u32 = 33u;

// As[kk * ROW + r] holds rows 4r..4r+3 of column kk of the A tile; Bs[kk * ROW + c] columns
// 4c..4c+3 of row kk of the B tile.
var<workgroup> As: array<vec4<A>, 264>;
var<workgroup> Bs: array<vec4<A>, 264>;

// Element (i, gk) of A, or 0 past the product's edges.
fn at_a(i: u32, gk: u32, m: u32, k: u32, abase: u32) -> A {
    if (i < m && gk < k) {
        return A(a[abase + i * p(P_A_ROW_STRIDE) + gk * p(P_A_COL_STRIDE)]);
    }
    return A(0);
}

// Element (gk, j) of B, or 0 past the product's edges.
fn at_b(gk: u32, j: u32, n: u32, k: u32, bbase: u32) -> A {
    if (j < n && gk < k) {
        return A(b[bbase + gk * p(P_B_ROW_STRIDE) + j * p(P_B_COL_STRIDE)]);
    }
    return A(0);
}

// The thread's share of the A tile at k0 (see `quad`): rows 4q..4q+3 at k0 + kk.
fn load_a(tid: u32, k0: u32, row0: u32, m: u32, k: u32, abase: u32) -> vec4<A> {
    let s = quad(tid, p(P_A_COL_STRIDE) == 1u);
    let i = row0 + s.x * 4u;
    let gk = k0 + s.y;
    return vec4<A>(at_a(i, gk, m, k, abase), at_a(i + 1u, gk, m, k, abase), at_a(i + 2u, gk, m, k, abase),
                   at_a(i + 3u, gk, m, k, abase));
}

// The thread's share of the B tile at k0: columns 4q..4q+3 at k0 + kk.
fn load_b(tid: u32, k0: u32, col0: u32, n: u32, k: u32, bbase: u32) -> vec4<A> {
    let s = quad(tid, p(P_B_ROW_STRIDE) == 1u);
    let j = col0 + s.x * 4u;
    let gk = k0 + s.y;
    return vec4<A>(at_b(gk, j, n, k, bbase), at_b(gk, j + 1u, n, k, bbase), at_b(gk, j + 2u, n, k, bbase),
                   at_b(gk, j + 3u, n, k, bbase));
}

@compute @workgroup_size(16, 16)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    let m = p(P_M);
    let n = p(P_N);
    let k = p(P_K);
    let batch = wid.z + p(P_FIRST_BATCH);
    let abase = p(P_A_OFFSET) + batch * p(P_A_BATCH_STRIDE);
    let bbase = p(P_B_OFFSET) + batch * p(P_B_BATCH_STRIDE);
    let row0 = wid.y * BM;
    let col0 = wid.x * BN;
    let tx = lid.x;
    let ty = lid.y;
    let tid = ty * 16u + tx;
    var c00 = vec4<A>();
    var c01 = vec4<A>();
    var c10 = vec4<A>();
    var c11 = vec4<A>();
    var c20 = vec4<A>();
    var c21 = vec4<A>();
    var c30 = vec4<A>();
    var c31 = vec4<A>();
    var c40 = vec4<A>();
    var c41 = vec4<A>();
    var c50 = vec4<A>();
    var c51 = vec4<A>();
    var c60 = vec4<A>();
    var c61 = vec4<A>();
    var c70 = vec4<A>();
    var c71 = vec4<A>();
    var na = load_a(tid, 0u, row0, m, k, abase);
    var nb = load_b(tid, 0u, col0, n, k, bbase);
    for (var k0 = 0u; k0 < k; k0 += BK) {
        store_a(0u, tid, na);
        store_b(0u, tid, nb);
        workgroupBarrier();
        let k1 = k0 + BK;
        if (k1 < k) {
            na = load_a(tid, k1, row0, m, k, abase);
            nb = load_b(tid, k1, col0, n, k, bbase);
        }
        for (var kk = 0u; kk < BK; kk++) {
            let a0 = As[kk * ROW + ty];
            let a1 = As[kk * ROW + 16u + ty];
            let b0 = Bs[kk * ROW + tx];
            let b1 = Bs[kk * ROW + 16u + tx];
            c00 += a0.x * b0;
            c01 += a0.x * b1;
            c10 += a0.y * b0;
            c11 += a0.y * b1;
            c20 += a0.z * b0;
            c21 += a0.z * b1;
            c30 += a0.w * b0;
            c31 += a0.w * b1;
            c40 += a1.x * b0;
            c41 += a1.x * b1;
            c50 += a1.y * b0;
            c51 += a1.y * b1;
            c60 += a1.z * b0;
            c61 += a1.z * b1;
            c70 += a1.w * b0;
            c71 += a1.w * b1;
        }
        workgroupBarrier();
    }
    let cbase = batch * m * n;
    let r0 = row0 + ty * 4u;
    let r1 = row0 + 64u + ty * 4u;
    let j0 = col0 + tx * 4u;
    let j1 = col0 + 64u + tx * 4u;
    put(cbase, r0, j0, j1, m, n, c00, c01);
    put(cbase, r0 + 1u, j0, j1, m, n, c10, c11);
    put(cbase, r0 + 2u, j0, j1, m, n, c20, c21);
    put(cbase, r0 + 3u, j0, j1, m, n, c30, c31);
    put(cbase, r1, j0, j1, m, n, c40, c41);
    put(cbase, r1 + 1u, j0, j1, m, n, c50, c51);
    put(cbase, r1 + 2u, j0, j1, m, n, c60, c61);
    put(cbase, r1 + 3u, j0, j1, m, n, c70, c71);
}
