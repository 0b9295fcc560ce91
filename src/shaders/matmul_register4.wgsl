// matmul_register.wgsl's 128x128 tiles (16x16 threads, 8x8 outputs each in 16 vec4
// accumulators, 8-deep steps along k) for operands laid out in whole vec4s
// (`MatmulArgs::register_vec4`), with two changes: an operand whose rows (A) or columns (B) are
// contiguous is read as one vec4 per thread and step, the four rows or columns the thread
// stages (four scalar loads each before, with their index math and edge tests); and the
// workgroup tiles are double-buffered: a step computes from one buffer and stores the next
// step's operands (loaded into registers before its products, so their latency hides behind
// the FMAs) into the other, so a step needs one barrier instead of two. An operand contiguous
// along k is read as matmul_register.wgsl reads it, four scalars (from the vec4 binding).
// A vec4 lies wholly inside the product or wholly outside (read as 0): the contiguous dim is a
// multiple of 4, and so are the other stride and the offsets. Shares `quad`, the stores and
// the epilogue with matmul_register.wgsl (matmul_register_common.wgsl).
// Params: `op::params::MatmulParams`.
@group(0) @binding(0) var<storage, read> a: array<vec4<S>>;
@group(0) @binding(1) var<storage, read> b: array<vec4<S>>;
@group(0) @binding(2) var<storage, read_write> c: array<S>;
@group(0) @binding(3) var<uniform> P: Params;

const BM: u32 = 128u;
const BN: u32 = 128u;
const BK: u32 = 8u;
// A row of a tile in workgroup memory: 32 vec4s and one of padding (see matmul_register.wgsl).
const ROW: u32 = 33u;
// One buffer of a tile: 8 rows along k.
const HALF: u32 = 264u;

// As[buf + kk * ROW + r] holds rows 4r..4r+3 of column kk of the A tile; Bs[buf + kk * ROW + c]
// columns 4c..4c+3 of row kk of the B tile; buf is 0 or HALF.
var<workgroup> As: array<vec4<A>, 528>;
var<workgroup> Bs: array<vec4<A>, 528>;

// Element (i, gk) of A (an index into the vec4 binding's scalars), or 0 past the edges.
fn at_a(i: u32, gk: u32, m: u32, k: u32, abase: u32) -> A {
    if (i < m && gk < k) {
        let e = abase + i * p(P_A_ROW_STRIDE) + gk * p(P_A_COL_STRIDE);
        return A(a[e / 4u][e % 4u]);
    }
    return A(0);
}

fn at_b(gk: u32, j: u32, n: u32, k: u32, bbase: u32) -> A {
    if (j < n && gk < k) {
        let e = bbase + gk * p(P_B_ROW_STRIDE) + j * p(P_B_COL_STRIDE);
        return A(b[e / 4u][e % 4u]);
    }
    return A(0);
}

// The thread's share of the A tile at k0 (see `quad`): rows 4q..4q+3 at k0 + kk, one vec4
// where A's rows are contiguous.
fn load_a(tid: u32, k0: u32, row0: u32, m: u32, k: u32, abase: u32) -> vec4<A> {
    let along_k = p(P_A_COL_STRIDE) == 1u;
    let s = quad(tid, along_k);
    let i = row0 + s.x * 4u;
    let gk = k0 + s.y;
    if (along_k) {
        return vec4<A>(at_a(i, gk, m, k, abase), at_a(i + 1u, gk, m, k, abase), at_a(i + 2u, gk, m, k, abase),
                       at_a(i + 3u, gk, m, k, abase));
    }
    if (i < m && gk < k) {
        return vec4<A>(a[(abase + gk * p(P_A_COL_STRIDE) + i) / 4u]);
    }
    return vec4<A>();
}

// The thread's share of the B tile at k0: columns 4q..4q+3 at k0 + kk, one vec4 where B's
// columns are contiguous.
fn load_b(tid: u32, k0: u32, col0: u32, n: u32, k: u32, bbase: u32) -> vec4<A> {
    let along_k = p(P_B_ROW_STRIDE) == 1u;
    let s = quad(tid, along_k);
    let j = col0 + s.x * 4u;
    let gk = k0 + s.y;
    if (along_k) {
        return vec4<A>(at_b(gk, j, n, k, bbase), at_b(gk, j + 1u, n, k, bbase), at_b(gk, j + 2u, n, k, bbase),
                       at_b(gk, j + 3u, n, k, bbase));
    }
    if (j < n && gk < k) {
        return vec4<A>(b[(bbase + gk * p(P_B_ROW_STRIDE) + j) / 4u]);
    }
    return vec4<A>();
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
    store_a(0u, tid, load_a(tid, 0u, row0, m, k, abase));
    store_b(0u, tid, load_b(tid, 0u, col0, n, k, bbase));
    workgroupBarrier();
    var buf = 0u;
    for (var k0 = 0u; k0 < k; k0 += BK) {
        let k1 = k0 + BK;
        let more = k1 < k;
        var na = vec4<A>();
        var nb = vec4<A>();
        if (more) {
            na = load_a(tid, k1, row0, m, k, abase);
            nb = load_b(tid, k1, col0, n, k, bbase);
        }
        for (var kk = 0u; kk < BK; kk++) {
            let at = buf + kk * ROW;
            let a0 = As[at + ty];
            let a1 = As[at + 16u + ty];
            let b0 = Bs[at + tx];
            let b1 = Bs[at + 16u + tx];
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
        // The other buffer was last read a step ago, before the barrier that ended it.
        buf = HALF - buf;
        if (more) {
            store_a(buf, tid, na);
            store_b(buf, tid, nb);
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
