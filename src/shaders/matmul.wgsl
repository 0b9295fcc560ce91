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
// vec4s per step and accumulates with vector FMAs.
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
    for (var k0 = 0u; k0 < k; k0 += BK) {
        for (var r = 0u; r < 4u; r++) {
            let e = tid + r * 256u;
            let i = e / BK;
            let kk = e % BK;
            let gi = row0 + i;
            let gk = k0 + kk;
            var v = A(0);
            if (gi < m && gk < k) {
                v = A(a[abase + gi * ars + gk * acs]);
            }
            As[kk * 16u + i / 4u][i % 4u] = v;
            let kb = e / BN;
            let j = e % BN;
            let gkb = k0 + kb;
            let gj = col0 + j;
            var w = A(0);
            if (gkb < k && gj < n) {
                w = A(b[bbase + gkb * brs + gj * bcs]);
            }
            Bs[kb * 16u + j / 4u][j % 4u] = w;
        }
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
