// Register-tiled batched matmul for hardware GPUs: each 16x16 workgroup computes a 128x128 tile
// of C, each thread an 8x8 block held in 16 vec4 accumulators, staging 128x8 of A and 8x128 of B
// in workgroup memory per step of 8 along k. Per step a thread reads 4 vec4s of workgroup
// memory for 64 FMAs (matmul.wgsl: 2 for 16). A thread's rows are 4 adjacent rows in each half
// of the tile (ty*4.. and 64+ty*4..), its columns likewise, so the vec4 reads of a warp touch
// consecutive words. The next step's operands are loaded into registers before this step's
// products, so their latency hides behind the FMAs with one buffer of workgroup memory.
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
// A row of a tile in workgroup memory: 32 vec4s and one of padding, so the 8 threads that
// store one row's 8 values along k hit 8 different banks (unpadded they all hit one).
const ROW: u32 = 33u;

// As[kk * ROW + r] holds rows 4r..4r+3 of column kk of the A tile; Bs[kk * ROW + c] columns
// 4c..4c+3 of row kk of the B tile.
var<workgroup> As: array<vec4<A>, 264>;
var<workgroup> Bs: array<vec4<A>, 264>;

// Tile element e (0..1024) of a thread's share, as (row or column within the tile, kk). With
// `along_k` the 8 values of a row along k are read by 8 consecutive threads (the operand's
// stride along k is 1); otherwise 128 consecutive threads read down the tile's rows or columns.
// Every call takes a constant offset of the thread's index, so no value is indexed at run time
// (a dynamically indexed register array goes to local memory on GPUs).
fn slot(e: u32, along_k: bool) -> vec2<u32> {
    if (along_k) {
        return vec2<u32>(e / BK, e % BK);
    }
    return vec2<u32>(e % BM, e / BM);
}

// Element e of the A tile at k0: its value, 0 past the product's edges.
fn load_a(e: u32, k0: u32, row0: u32, m: u32, k: u32, abase: u32) -> A {
    let acs = p(P_A_COL_STRIDE);
    let s = slot(e, acs == 1u);
    let gi = row0 + s.x;
    let gk = k0 + s.y;
    if (gi < m && gk < k) {
        return A(a[abase + gi * p(P_A_ROW_STRIDE) + gk * acs]);
    }
    return A(0);
}

fn load_b(e: u32, k0: u32, col0: u32, n: u32, k: u32, bbase: u32) -> A {
    let brs = p(P_B_ROW_STRIDE);
    let s = slot(e, brs == 1u);
    let gj = col0 + s.x;
    let gk = k0 + s.y;
    if (gj < n && gk < k) {
        return A(b[bbase + gk * brs + gj * p(P_B_COL_STRIDE)]);
    }
    return A(0);
}

fn store_a(e: u32, v: A) {
    let s = slot(e, p(P_A_COL_STRIDE) == 1u);
    As[s.y * ROW + s.x / 4u][s.x % 4u] = v;
}

fn store_b(e: u32, v: A) {
    let s = slot(e, p(P_B_ROW_STRIDE) == 1u);
    Bs[s.y * ROW + s.x / 4u][s.x % 4u] = v;
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
    var na0 = load_a(tid, 0u, row0, m, k, abase);
    var na1 = load_a(tid + 256u, 0u, row0, m, k, abase);
    var na2 = load_a(tid + 512u, 0u, row0, m, k, abase);
    var na3 = load_a(tid + 768u, 0u, row0, m, k, abase);
    var nb0 = load_b(tid, 0u, col0, n, k, bbase);
    var nb1 = load_b(tid + 256u, 0u, col0, n, k, bbase);
    var nb2 = load_b(tid + 512u, 0u, col0, n, k, bbase);
    var nb3 = load_b(tid + 768u, 0u, col0, n, k, bbase);
    for (var k0 = 0u; k0 < k; k0 += BK) {
        store_a(tid, na0);
        store_a(tid + 256u, na1);
        store_a(tid + 512u, na2);
        store_a(tid + 768u, na3);
        store_b(tid, nb0);
        store_b(tid + 256u, nb1);
        store_b(tid + 512u, nb2);
        store_b(tid + 768u, nb3);
        workgroupBarrier();
        let k1 = k0 + BK;
        if (k1 < k) {
            na0 = load_a(tid, k1, row0, m, k, abase);
            na1 = load_a(tid + 256u, k1, row0, m, k, abase);
            na2 = load_a(tid + 512u, k1, row0, m, k, abase);
            na3 = load_a(tid + 768u, k1, row0, m, k, abase);
            nb0 = load_b(tid, k1, col0, n, k, bbase);
            nb1 = load_b(tid + 256u, k1, col0, n, k, bbase);
            nb2 = load_b(tid + 512u, k1, col0, n, k, bbase);
            nb3 = load_b(tid + 768u, k1, col0, n, k, bbase);
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
