// Register-tiled batched matmul for hardware GPUs: each 16x16 workgroup computes a 128x128 tile
// of C, each thread an 8x8 block held in 16 vec4 accumulators, staging 128x8 of A and 8x128 of B
// in workgroup memory per step of 8 along k. Per step a thread reads 4 vec4s of workgroup
// memory for 64 FMAs (matmul.wgsl: 2 for 16). A thread's rows are 4 adjacent rows in each half
// of the tile (ty*4.. and 64+ty*4..), its columns likewise, so the vec4 reads of a warp touch
// consecutive words. The next step's operands are loaded into registers before this step's
// products, so their latency hides behind the FMAs with one buffer of workgroup memory.
// Operands are read through row/column strides (transposed views need no copy); the global
// loads walk whichever stride is 1, so a warp reads consecutive words in either layout.
// Params: as matmul.wgsl.
@group(0) @binding(0) var<storage, read> a: array<S>;
@group(0) @binding(1) var<storage, read> b: array<S>;
@group(0) @binding(2) var<storage, read_write> c: array<S>;
@group(0) @binding(3) var<uniform> P: Params;

const BM: u32 = 128u;
const BN: u32 = 128u;
const BK: u32 = 8u;

// As[kk * 32 + r] holds rows 4r..4r+3 of column kk of the A tile; Bs[kk * 32 + c] columns
// 4c..4c+3 of row kk of the B tile.
var<workgroup> As: array<vec4<A>, 256>;
var<workgroup> Bs: array<vec4<A>, 256>;

// The operands' next values (4 of A, 4 of B per thread) and where they go in the tiles.
struct Stage {
    av: vec4<A>,
    bv: vec4<A>,
}

// Element r (0..4) of this thread's share of a tile: (row or column within the tile, kk). With
// `along_k` the 8 values of a row along k are read by 8 consecutive threads (the operand's
// stride along k is 1); otherwise 128 consecutive threads read down the tile's rows or columns.
fn slot(tid: u32, r: u32, along_k: bool) -> vec2<u32> {
    let e = tid + r * 256u;
    if (along_k) {
        return vec2<u32>(e / BK, e % BK);
    }
    return vec2<u32>(e % BM, e / BM);
}

fn load(tid: u32, k0: u32, row0: u32, col0: u32, m: u32, n: u32, k: u32, abase: u32, bbase: u32) -> Stage {
    let ars = p(8u);
    let acs = p(9u);
    let brs = p(10u);
    let bcs = p(11u);
    var s: Stage;
    for (var r = 0u; r < 4u; r++) {
        let sa = slot(tid, r, acs == 1u);
        let gi = row0 + sa.x;
        let gk = k0 + sa.y;
        var v = A(0);
        if (gi < m && gk < k) {
            v = A(a[abase + gi * ars + gk * acs]);
        }
        s.av[r] = v;
        let sb = slot(tid, r, brs == 1u);
        let gj = col0 + sb.x;
        let gkb = k0 + sb.y;
        var w = A(0);
        if (gj < n && gkb < k) {
            w = A(b[bbase + gkb * brs + gj * bcs]);
        }
        s.bv[r] = w;
    }
    return s;
}

fn store(tid: u32, s: Stage) {
    let acs = p(9u);
    let brs = p(10u);
    for (var r = 0u; r < 4u; r++) {
        let sa = slot(tid, r, acs == 1u);
        As[sa.y * 32u + sa.x / 4u][sa.x % 4u] = s.av[r];
        let sb = slot(tid, r, brs == 1u);
        Bs[sb.y * 32u + sb.x / 4u][sb.x % 4u] = s.bv[r];
    }
}

@compute @workgroup_size(16, 16)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    let m = p(0u);
    let n = p(1u);
    let k = p(2u);
    let batch = wid.z + p(7u);
    let abase = p(5u) + batch * p(3u);
    let bbase = p(6u) + batch * p(4u);
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
    var next = load(tid, 0u, row0, col0, m, n, k, abase, bbase);
    for (var k0 = 0u; k0 < k; k0 += BK) {
        store(tid, next);
        workgroupBarrier();
        if (k0 + BK < k) {
            next = load(tid, k0 + BK, row0, col0, m, n, k, abase, bbase);
        }
        for (var kk = 0u; kk < BK; kk++) {
            let a0 = As[kk * 32u + ty];
            let a1 = As[kk * 32u + 16u + ty];
            let b0 = Bs[kk * 32u + tx];
            let b1 = Bs[kk * 32u + 16u + tx];
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

// Row `i` of C at columns j0..j0+3 and j1..j1+3, the parts inside the product.
fn put(cbase: u32, i: u32, j0: u32, j1: u32, m: u32, n: u32, v0: vec4<A>, v1: vec4<A>) {
    if (i >= m) {
        return;
    }
    let row = cbase + i * n;
    for (var j = 0u; j < 4u; j++) {
        if (j0 + j < n) {
            c[row + j0 + j] = S(v0[j]);
        }
        if (j1 + j < n) {
            c[row + j1 + j] = S(v1[j]);
        }
    }
}
